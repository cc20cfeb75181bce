package dev.dbbulkhead.annotation;

import java.lang.reflect.Method;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
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

    /** The workload's own transaction settings, which a method's {@code @DbBulkhead} and {@code @Transactional} refine. */
    TransactionDefinition transactionDefinition(String workload);

    /**
     * The transaction manager that runs the workload's transactions: a method's own {@code @Transactional} must run
     * in this one too, so that Spring's transaction interceptor joins the admitted transaction.
     */
    PlatformTransactionManager transactionManager(String workload);

    /**
     * Runs the calls naming {@code workload} in transactions of {@code definition} (propagation {@code REQUIRED}, on
     * {@link #transactionManager}); the workload passed {@link #check} at start-up.
     */
    TransactionOperations transactions(String workload, TransactionDefinition definition);

    /**
     * Whether {@link #transactions} may run one call's callback more than once, retrying a failed attempt: then each
     * attempt proceeds down the rest of the method's advice chain afresh.
     */
    default boolean retries(String workload) {
        return false;
    }

    /**
     * Whether the workload's gate has admission rules (criticality reserves, fair shares), so that a call's
     * {@code @DbBulkhead(criticality, key)} must be told to it; {@code false} spares every call of the others any work.
     */
    default boolean classifies(String workload) {
        return false;
    }
}
