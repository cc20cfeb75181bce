package dev.dbbulkhead;

/** Why a bulkhead turned an operation away. Counted apart, because each calls for a different response. */
public enum RejectionReason {

    /** All {@code B + Q} admission permits were taken: the operation was refused at once, without waiting. */
    ADMISSION_FULL,

    /** Admitted, but no execution permit became free within the queue wait. */
    QUEUE_TIMEOUT,

    /** Admitted, but the thread was interrupted while it waited for an execution permit. */
    INTERRUPTED,

    /**
     * What was left of the operation's deadline was less than the workload's operations usually take (the median
     * hold time of its recent operations with a deadline): refused before it could time out inside the database, on
     * entry or once it had its execution permit. Not overload: the caller's time, not the database's capacity, ran
     * short.
     */
    INSUFFICIENT_TIME;

    /** The metric tag value: {@code full}, {@code timeout}, {@code interrupted} or {@code insufficient_time}. */
    public String tagValue() {
        return switch (this) {
            case ADMISSION_FULL -> "full";
            case QUEUE_TIMEOUT -> "timeout";
            case INTERRUPTED -> "interrupted";
            case INSUFFICIENT_TIME -> "insufficient_time";
        };
    }
}
