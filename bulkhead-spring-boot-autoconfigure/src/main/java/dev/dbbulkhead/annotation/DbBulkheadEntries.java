package dev.dbbulkhead.annotation;

import java.lang.reflect.Method;
import org.springframework.transaction.support.TransactionOperations;

/**
 * How the calls of {@code @DbBulkhead} methods run, one workload at a time: admitted through the workload's gate,
 * or — with the gates turned off — only in the workload's transaction. Never without a transaction: where neither
 * is possible, {@link #check} refuses the method at start-up. The Spring Boot auto-configuration provides the
 * implementations; {@link DbBulkheadPostProcessor} asks one.
 */
public interface DbBulkheadEntries {

    /**
     * Checks at start-up that calls of {@code method} naming {@code workload} can run as promised.
     *
     * @throws RuntimeException a report that names the bean, the method and the fix, otherwise
     */
    void check(String beanName, Class<?> beanClass, Method method, String workload);

    /** Runs the calls naming {@code workload}; the workload passed {@link #check} at start-up. */
    TransactionOperations transactions(String workload);
}
