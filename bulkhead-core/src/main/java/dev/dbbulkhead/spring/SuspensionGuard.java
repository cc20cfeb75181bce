package dev.dbbulkhead.spring;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.MisuseKind;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;

/**
 * Registered on every admitted transaction; refuses to let it be suspended. Spring suspends a transaction
 * before a {@code REQUIRES_NEW} or {@code NOT_SUPPORTED} scope begins — before that scope takes its own
 * connection — whether it is asked for by {@code @Transactional}, a {@code TransactionTemplate} or a direct
 * {@code PlatformTransactionManager} call. Running first among the synchronizations, this guard throws
 * before anything has been suspended, so the admitted transaction stays intact and rolls back normally.
 */
final class SuspensionGuard implements TransactionSynchronization, Ordered {

    private final String workload;

    SuspensionGuard(String workload) {
        this.workload = workload;
    }

    @Override
    public void suspend() {
        throw new BulkheadMisuseException(workload, MisuseKind.SUSPENDING_PROPAGATION,
                "A transaction propagation that suspends the transaction admitted by bulkhead '" + workload
                        + "' (REQUIRES_NEW or NOT_SUPPORTED) was requested inside it: it would take a second"
                        + " connection while holding the first. Use REQUIRED (join) or NESTED (savepoint), or"
                        + " run the independent work as its own admitted operation after this one returns.");
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
