package dev.dbbulkhead;

import java.util.Objects;

/**
 * The commit of an admitted operation failed without a verdict from the database — typically the connection
 * was lost while committing. The write may or may not have taken effect. <b>Do not retry blindly:</b> use an
 * idempotency key, or query the outcome before trying again. The cause is the commit's failure.
 */
public class CommitOutcomeUnknownException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String workload;

    /**
     * @param workload      the workload whose operation was committing
     * @param commitFailure what the commit threw
     */
    public CommitOutcomeUnknownException(String workload, Throwable commitFailure) {
        super("Commit of an operation of bulkhead '" + Objects.requireNonNull(workload, "workload")
                + "' failed without a verdict; the write may have taken effect, do not retry it blindly", commitFailure);
        this.workload = workload;
    }

    /** The workload whose operation was committing. */
    public String workload() {
        return workload;
    }
}
