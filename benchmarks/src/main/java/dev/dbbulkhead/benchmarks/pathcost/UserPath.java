package dev.dbbulkhead.benchmarks.pathcost;

import java.util.Map;
import java.util.function.Function;
import java.util.function.IntToLongFunction;
import org.springframework.context.ApplicationContext;

/**
 * The ways a user's code reaches the same one-row transaction: without a bulkhead, through the starter with more
 * and more of its instrumentation on, through the starter admitting at the pool, and through Resilience4j's bulkhead.
 */
public enum UserPath {

    /** The {@code @Transactional} bean called directly: the floor. */
    TRANSACTIONAL("`@Transactional` alone", false, PathConfigurations.TransactionalApplication.class,
            context -> context.getBean(Accounts.class)::credit),
    /**
     * The same {@code @Transactional} bean called directly, on an application that admits where connections are taken
     * ({@code db.bulkhead.work.default-workload=orders}): the transaction's borrow is admitted by the gate of workload
     * {@code orders}, with no annotation of the starter's on the call.
     */
    POOL_ADMISSION("`@Transactional` alone, admitted at the pool", true,
            PathConfigurations.PoolAdmissionApplication.class, context -> context.getBean(Accounts.class)::credit,
            PathConfigurations.PoolAdmissionApplication.PROPERTIES),
    /**
     * The same, each call's workload bound to its thread as the starter's filter binds an HTTP request's by an
     * {@code http} rule: the borrow is admitted without reading the stack, the recommended configuration's path.
     */
    POOL_ADMISSION_BOUND("`@Transactional` alone, admitted at the pool, its workload bound", true,
            PathConfigurations.PoolAdmissionApplication.class, PathConfigurations::boundCall,
            PathConfigurations.PoolAdmissionApplication.PROPERTIES),
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
    private final Map<String, Object> properties;

    UserPath(String label, boolean starter, Class<?> configuration,
             Function<ApplicationContext, IntToLongFunction> entry) {
        this(label, starter, configuration, entry, Map.of());
    }

    UserPath(String label, boolean starter, Class<?> configuration,
             Function<ApplicationContext, IntToLongFunction> entry, Map<String, Object> properties) {
        this.label = label;
        this.starter = starter;
        this.configuration = configuration;
        this.entry = entry;
        this.properties = Map.copyOf(properties);
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

    /**
     * What the path's application sets beyond the properties all paths share ({@link PathApplication}): what turns a
     * feature of the starter on is a property, as in an application, not a bean of the benchmark's.
     */
    Map<String, Object> properties() {
        return properties;
    }

    /** The call a user's code makes on this path: credit an account, return its new balance. */
    IntToLongFunction entry(ApplicationContext context) {
        return entry.apply(context);
    }
}
