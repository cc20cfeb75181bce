package dev.dbbulkhead;

/** Why a bulkhead turned an operation away. Counted apart, because each calls for a different response. */
public enum RejectionReason {

    /** All {@code B + Q} admission permits were taken when the operation came: refused at once, without waiting. */
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
    INSUFFICIENT_TIME,

    /**
     * Places were left, but only places held back for more critical work ({@link dev.dbbulkhead.gate.Criticality}):
     * refused at once, without waiting, at the entry ceiling of its criticality. The overload is absorbed by the least
     * critical work first.
     */
    SHED_BY_CRITICALITY,

    /**
     * The operation waited and, every place of the workload taken, gave its place to an operation of a key (tenant)
     * that had used less of the workload of late: its own key was the furthest over its fair share. Never while a
     * place is free, so that one key cannot take the places of the others and nobody is held back from idle ones.
     */
    OVER_FAIR_SHARE,

    /**
     * The operation waited and, every place of the workload taken, gave its place to work that goes before it: more
     * critical work, or — a new request's operation — an operation of a request already in progress of its
     * criticality (a workload that serves those first). A push-out: it had been admitted, and nothing of it ran.
     */
    PUSHED_OUT,

    /**
     * All of the workload's own places were taken and it may borrow ({@link dev.dbbulkhead.gate.GateLending}), but no
     * place of the other workloads of its pool was free to borrow — their owners use them, or one of them is waiting
     * to take its own place back: refused at once, without waiting, so that a borrowed place is the first refused
     * when its owner needs it.
     */
    BORROW_REFUSED,

    /**
     * The gate is shutting down ({@link dev.dbbulkhead.gate.AdmissionGate#shutDown()}) and admits no new work:
     * refused at once, without waiting, while the operations admitted before — running or queued — finish. Not
     * overload: another instance, or this one once restarted, can take the operation.
     */
    SHUTTING_DOWN;

    /**
     * The metric tag value: {@code full}, {@code timeout}, {@code interrupted}, {@code insufficient_time},
     * {@code criticality}, {@code fair_share}, {@code pushed_out}, {@code borrow_refused} or {@code shutting_down}.
     */
    public String tagValue() {
        return switch (this) {
            case ADMISSION_FULL -> "full";
            case QUEUE_TIMEOUT -> "timeout";
            case INTERRUPTED -> "interrupted";
            case INSUFFICIENT_TIME -> "insufficient_time";
            case SHED_BY_CRITICALITY -> "criticality";
            case OVER_FAIR_SHARE -> "fair_share";
            case PUSHED_OUT -> "pushed_out";
            case BORROW_REFUSED -> "borrow_refused";
            case SHUTTING_DOWN -> "shutting_down";
        };
    }
}
