package dev.dbbulkhead;

import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;

/**
 * A bulkhead refused an operation before it touched the connection pool: nothing ran, nothing was
 * written, and the operation may be retried within the caller's retry budget.
 *
 * <p>By default the exception carries no stack trace: shedding load must stay cheap, and at server
 * stack depth filling one in costs microseconds. The workload and the {@link #reason()} say all a
 * handler needs. A bulkhead configured to capture stack traces fills it in as usual.
 */
public class BulkheadRejectedException extends RejectedExecutionException {

    private static final long serialVersionUID = 1L;

    private final String workload;
    private final RejectionReason reason;

    /**
     * @param workload          the bulkhead's workload name
     * @param reason            why the operation was refused
     * @param captureStackTrace whether to fill in the stack trace
     */
    public BulkheadRejectedException(String workload, RejectionReason reason, boolean captureStackTrace) {
        super((String) null);
        this.workload = Objects.requireNonNull(workload, "workload");
        this.reason = Objects.requireNonNull(reason, "reason");
        if (captureStackTrace) {
            super.fillInStackTrace();
        }
    }

    /** The workload whose bulkhead refused the operation. */
    public String workload() {
        return workload;
    }

    /** Why the operation was refused. */
    public RejectionReason reason() {
        return reason;
    }

    /** Built on demand, so a rejection that nobody logs costs no string formatting. */
    @Override
    public String getMessage() {
        return switch (reason) {
            case ADMISSION_FULL -> "Bulkhead '" + workload + "' is full: no admission permit left, rejected at once";
            case QUEUE_TIMEOUT -> "Bulkhead '" + workload + "' queue wait expired before an execution permit was free";
            case INTERRUPTED -> "Bulkhead '" + workload + "': interrupted while waiting for an execution permit";
            case INSUFFICIENT_TIME -> "Bulkhead '" + workload + "': less of the deadline was left than its operations"
                    + " usually take; refused before it could time out in the database";
            case SHED_BY_CRITICALITY -> "Bulkhead '" + workload + "': only places held back for more critical work"
                    + " were left; refused at once";
            case OVER_FAIR_SHARE -> "Bulkhead '" + workload + "': the operation's key already had its fair share of"
                    + " the places while other keys asked for theirs; refused at once";
            case BORROW_REFUSED -> "Bulkhead '" + workload + "' is full and no place of its pool was free to borrow:"
                    + " their owners use them or want them back; refused at once";
            case SHUTTING_DOWN -> "Bulkhead '" + workload + "' is shutting down: it admits no new work while the"
                    + " operations already admitted finish; refused at once";
        };
    }

    /** Does nothing here; the constructor fills the trace in when asked to. */
    @Override
    public final Throwable fillInStackTrace() {
        return this;
    }
}
