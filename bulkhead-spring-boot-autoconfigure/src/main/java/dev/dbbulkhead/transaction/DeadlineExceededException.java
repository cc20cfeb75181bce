package dev.dbbulkhead.transaction;

import java.util.Objects;
import org.springframework.transaction.TransactionTimedOutException;

/**
 * An admitted operation ran out of its deadline inside its transaction: a statement was cancelled by the
 * {@code statement_timeout} the deadline's remainder capped (SQLState 57014), or Spring found the transaction's
 * time, shortened to the remainder, spent. The transaction was rolled back: nothing was written, and the
 * operation may be retried within the caller's retry budget. The cause is what the database or Spring threw.
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
        super("The operation of bulkhead '" + Objects.requireNonNull(workload, "workload") + "' ran out of its"
                + " deadline inside its transaction; the transaction was rolled back, nothing was written", cause);
        this.workload = workload;
    }

    /** The workload whose operation ran out of its deadline. */
    public String workload() {
        return workload;
    }
}
