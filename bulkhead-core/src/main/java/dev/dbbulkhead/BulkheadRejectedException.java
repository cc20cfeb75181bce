package dev.dbbulkhead;

import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;

/**
 * A bulkhead refused an operation before it touched the connection pool: the operation did not run, wrote nothing,
 * and may be retried within the caller's retry budget. Earlier operations of the same request may have committed,
 * each in its own transaction: {@link #committedBefore()} says how many, for a request whose commits are tracked
 * ({@code RequestCommits.track()}; the Spring Boot starter tracks every HTTP request's). When it is above zero, the
 * request as a whole must not be retried blindly.
 *
 * <p>By default the exception carries no stack trace: shedding load must stay cheap, and at server
 * stack depth filling one in costs microseconds. The workload and the {@link #reason()} say all a
 * handler needs. A bulkhead configured to capture stack traces fills it in as usual.
 */
public class BulkheadRejectedException extends RejectedExecutionException {

    private static final long serialVersionUID = 1L;

    private final String workload;
    private final RejectionReason reason;
    private final int committedBefore;

    /**
     * A refusal with no earlier operation of its request known to have committed.
     *
     * @param workload          the bulkhead's workload name
     * @param reason            why the operation was refused
     * @param captureStackTrace whether to fill in the stack trace
     */
    public BulkheadRejectedException(String workload, RejectionReason reason, boolean captureStackTrace) {
        this(workload, reason, captureStackTrace, 0);
    }

    /**
     * @param workload          the bulkhead's workload name
     * @param reason            why the operation was refused
     * @param captureStackTrace whether to fill in the stack trace
     * @param committedBefore   how many earlier operations of the same request committed (or may have: their commit
     *                          failed without telling); zero or more
     */
    public BulkheadRejectedException(String workload, RejectionReason reason, boolean captureStackTrace,
                                     int committedBefore) {
        super((String) null);
        this.workload = Objects.requireNonNull(workload, "workload");
        this.reason = Objects.requireNonNull(reason, "reason");
        if (committedBefore < 0) {
            throw new IllegalArgumentException("committedBefore must be 0 or more, was " + committedBefore);
        }
        this.committedBefore = committedBefore;
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

    /**
     * How many earlier operations of the request this operation served had committed when it was refused — counting
     * those whose commit failed without telling whether it took effect. Zero when none had, or when the request's
     * commits were not tracked. Above zero, the request is part done: retrying it whole repeats what committed.
     */
    public int committedBefore() {
        return committedBefore;
    }

    /** Built on demand, so a rejection that nobody logs costs no string formatting. */
    @Override
    public String getMessage() {
        String refused = refusal();
        return committedBefore == 0 ? refused : refused + "; " + committedBefore + " earlier operation(s) of the same"
                + " request had committed, so the request is not safe to retry blindly";
    }

    private String refusal() {
        return switch (reason) {
            case ADMISSION_FULL -> "Bulkhead '" + workload + "' is full: no admission permit left, rejected at once";
            case QUEUE_TIMEOUT -> "Bulkhead '" + workload + "' queue wait expired before an execution permit was free";
            case INTERRUPTED -> "Bulkhead '" + workload + "': interrupted while waiting for an execution permit";
            case INSUFFICIENT_TIME -> "Bulkhead '" + workload + "': less of the deadline was left than its operations"
                    + " usually take; refused before it could time out in the database";
            case SHED_BY_CRITICALITY -> "Bulkhead '" + workload + "': refused for more critical work (only places"
                    + " held back for it were left); refused at once";
            case OVER_FAIR_SHARE -> "Bulkhead '" + workload + "' is full and the operation's key was the furthest over"
                    + " its fair share: a key that had used less took its place in the queue";
            case PUSHED_OUT -> "Bulkhead '" + workload + "' is full and work that goes first (more critical, or of a"
                    + " request in progress) took this operation's place in the queue";
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
