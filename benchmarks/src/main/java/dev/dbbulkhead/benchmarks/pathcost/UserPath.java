package dev.dbbulkhead.benchmarks.pathcost;

import java.util.function.Function;
import java.util.function.IntToLongFunction;
import org.springframework.context.ApplicationContext;

/**
 * The ways a user's code reaches the same one-row transaction: without a bulkhead, through the starter with more
 * and more of its instrumentation on, and through Resilience4j's bulkhead.
 */
public enum UserPath {

    /** The {@code @Transactional} bean called directly: the floor. */
    TRANSACTIONAL("`@Transactional` alone", false, PathConfigurations.TransactionalApplication.class,
            context -> context.getBean(Accounts.class)::credit),
    /** A {@code @DbBulkhead("orders")} entry method calling the {@code @Transactional} bean: the gate alone. */
    STARTER("`@DbBulkhead`, no meters, no observations", true, PathConfigurations.StarterApplication.class,
            PathConfigurations::bulkheadedEntry),
    /** The same with the {@code db.bulkhead.*} meters on. */
    STARTER_METERS("`@DbBulkhead` + meters", true, PathConfigurations.StarterMetersApplication.class,
            PathConfigurations::bulkheadedEntry),
    /** The same with the meters and the observations on: the starter as an application gets it by default. */
    STARTER_OBSERVED("`@DbBulkhead` + meters + observations", true,
            PathConfigurations.StarterObservedApplication.class, PathConfigurations::bulkheadedEntry),
    /** The same with a tracer listening to the observations (a stand-in that does nothing itself). */
    STARTER_TRACED("`@DbBulkhead` + meters + observations, traced", true,
            PathConfigurations.StarterTracedApplication.class, PathConfigurations::bulkheadedEntry),
    /** Resilience4j's {@code @Bulkhead} entry method (its Spring Boot 4 module) calling the {@code @Transactional} bean. */
    RESILIENCE4J("Resilience4j `@Bulkhead` → `@Transactional`", false, PathConfigurations.Resilience4jApplication.class,
            context -> context.getBean(Resilience4jOrders.class)::credit);

    private final String label;
    private final boolean starter;
    private final Class<?> configuration;
    private final Function<ApplicationContext, IntToLongFunction> entry;

    UserPath(String label, boolean starter, Class<?> configuration,
             Function<ApplicationContext, IntToLongFunction> entry) {
        this.label = label;
        this.starter = starter;
        this.configuration = configuration;
        this.entry = entry;
    }

    /** How the report names the path. */
    public String label() {
        return label;
    }

    /** True for the paths through db-bulkhead's own code: the ones a change of the product can move. */
    public boolean starter() {
        return starter;
    }

    Class<?> configuration() {
        return configuration;
    }

    /** The call a user's code makes on this path: credit an account, return its new balance. */
    IntToLongFunction entry(ApplicationContext context) {
        return entry.apply(context);
    }
}
