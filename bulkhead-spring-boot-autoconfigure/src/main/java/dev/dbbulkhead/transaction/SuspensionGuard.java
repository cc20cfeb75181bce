package dev.dbbulkhead.transaction;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.MisuseKind;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;

/**
 * Registered on every admitted transaction; refuses to let it be suspended. Spring suspends a transaction
 * before a {@code REQUIRES_NEW} or {@code NOT_SUPPORTED} scope begins — before that scope takes its own
 * connection — whether it is asked for by {@code @Transactional}, a {@code TransactionTemplate} or a direct
 * {@code PlatformTransactionManager} call. Running first among the synchronizations, this guard throws
 * before anything has been suspended, so the admitted transaction stays intact and rolls back normally.
 *
 * <p>A <em>second</em> transaction manager (another data source) beginning its own transaction inside the
 * admitted region suspends the synchronizations too, yet leaves the admitted transaction and its connection
 * alone: that is legal, and let through. The two are told apart by the path Spring takes: only a manager that
 * found a transaction of its own on the thread suspends it (Spring's {@code handleExistingTransaction}); a
 * manager starting the first transaction of its resource suspends the synchronizations alone.
 */
final class SuspensionGuard implements TransactionSynchronization, Ordered {

    private static final String TRANSACTION_MANAGER = AbstractPlatformTransactionManager.class.getName();
    private static final String SUSPENDS_EXISTING_TRANSACTION = "handleExistingTransaction";

    private final String workload;

    SuspensionGuard(String workload) {
        this.workload = workload;
    }

    @Override
    public void suspend() {
        if (!suspendsAnExistingTransaction()) {
            return;
        }
        throw new BulkheadMisuseException(workload, MisuseKind.SUSPENDING_PROPAGATION,
                "A transaction propagation that suspends the transaction admitted by bulkhead '" + workload
                        + "' (REQUIRES_NEW or NOT_SUPPORTED) was requested inside it: it would take a second"
                        + " connection while holding the first. Use REQUIRED (join) or NESTED (savepoint), or"
                        + " run the independent work as its own admitted operation after this one returns.");
    }

    /** Asked only when a suspension happens, which is rare: never on the path of an ordinary transaction. */
    private static boolean suspendsAnExistingTransaction() {
        return StackWalker.getInstance().walk(frames -> frames.anyMatch(frame ->
                frame.getClassName().equals(TRANSACTION_MANAGER)
                        && frame.getMethodName().equals(SUSPENDS_EXISTING_TRANSACTION)));
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
