package dev.dbbulkhead.transaction;

import java.util.Objects;
import org.springframework.transaction.TransactionTimedOutException;

/**
 * An admitted operation ran out of its deadline inside its transaction: a statement was cancelled by the
 * {@code statement_timeout} the deadline's remainder capped (SQLState 57014), or Spring found the transaction's
 * time, shortened to the remainder, spent. The transaction was rolled back: nothing was written, and the
 * operation may be retried within the caller's retry budget. The cause is what the database or Spring threw.
 *
 * <p>Also thrown when the deadline ran out while the operation waited for a connection of a HikariCP pool, whose wait
 * the deadline's remainder bounds ({@link DeadlinePoolWait}): no transaction began, nothing was written; the cause is
 * what the transaction manager threw, with HikariCP's {@code SQLTransientConnectionException} in its chain.
 *
 * <p>Never thrown for a {@code statement-timeout} or {@code transaction.timeout} that ends a statement while
 * budget remains: those limits are the application's own and surface as they are.
 */
public class DeadlineExceededException extends TransactionTimedOutException {

    private static final long serialVersionUID = 1L;

    private final String workload;

    /**
     * @param workload the workload whose operation ran out of its deadline
     * @param cause    the timeout the database or Spring reported
     */
    public DeadlineExceededException(String workload, Throwable cause) {
        this(workload, "inside its transaction; the transaction was rolled back, nothing was written", cause);
    }

    private DeadlineExceededException(String workload, String where, Throwable cause) {
        super("The operation of bulkhead '" + Objects.requireNonNull(workload, "workload") + "' ran out of its"
                + " deadline " + where, cause);
        this.workload = workload;
    }

    /** The deadline ran out while the operation waited for a connection: {@code cause} is what that wait threw. */
    static DeadlineExceededException waitingForConnection(String workload, Throwable cause) {
        return new DeadlineExceededException(workload, "waiting for a connection of its pool; no transaction began,"
                + " nothing was written", cause);
    }

    /** The workload whose operation ran out of its deadline. */
    public String workload() {
        return workload;
    }
}
