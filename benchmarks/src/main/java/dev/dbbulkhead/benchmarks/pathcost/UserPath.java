package dev.dbbulkhead.benchmarks.pathcost;

import java.util.function.Function;
import java.util.function.IntToLongFunction;
import org.springframework.context.ApplicationContext;

/** The three ways a user's code reaches the same one-row transaction. */
public enum UserPath {

    /** The {@code @Transactional} bean called directly: the floor. */
    TRANSACTIONAL("`@Transactional` alone", PathConfigurations.TransactionalApplication.class,
            context -> context.getBean(Accounts.class)::credit),
    /** A {@code @DbBulkhead("orders")} entry method calling the {@code @Transactional} bean, meters and observations on. */
    DB_BULKHEAD("`@DbBulkhead` → `@Transactional`", PathConfigurations.DbBulkheadApplication.class,
            context -> context.getBean(BulkheadedOrders.class)::credit),
    /** Resilience4j's {@code @Bulkhead} entry method (its Spring Boot 4 module) calling the {@code @Transactional} bean. */
    RESILIENCE4J("Resilience4j `@Bulkhead` → `@Transactional`", PathConfigurations.Resilience4jApplication.class,
            context -> context.getBean(Resilience4jOrders.class)::credit);

    private final String label;
    private final Class<?> configuration;
    private final Function<ApplicationContext, IntToLongFunction> entry;

    UserPath(String label, Class<?> configuration, Function<ApplicationContext, IntToLongFunction> entry) {
        this.label = label;
        this.configuration = configuration;
        this.entry = entry;
    }

    /** How the report names the path. */
    public String label() {
        return label;
    }

    Class<?> configuration() {
        return configuration;
    }

    /** The call a user's code makes on this path: credit an account, return its new balance. */
    IntToLongFunction entry(ApplicationContext context) {
        return entry.apply(context);
    }
}
