package dev.dbbulkhead;

/** Why a bulkhead turned an operation away. Counted apart, because each calls for a different response. */
public enum RejectionReason {

    /** All {@code B + Q} admission permits were taken: the operation was refused at once, without waiting. */
    ADMISSION_FULL,

    /** Admitted, but no execution permit became free within the queue wait. */
    QUEUE_TIMEOUT,

    /** Admitted, but the thread was interrupted while it waited for an execution permit. */
    INTERRUPTED;

    /** The metric tag value: {@code full}, {@code timeout} or {@code interrupted}. */
    public String tagValue() {
        return switch (this) {
            case ADMISSION_FULL -> "full";
            case QUEUE_TIMEOUT -> "timeout";
            case INTERRUPTED -> "interrupted";
        };
    }
}
