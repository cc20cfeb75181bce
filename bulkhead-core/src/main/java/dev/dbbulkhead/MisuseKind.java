package dev.dbbulkhead;

/** The ways of entering a bulkhead that would break its one-operation-one-connection accounting. */
public enum MisuseKind {

    /**
     * The thread already holds a permit of a bulkhead (the same or another workload), or was started inside an
     * admitted operation that still holds its permit (work forked from it). Waiting for a second permit while
     * holding the first can deadlock, and a second connection breaks the limit.
     */
    REENTRANT_ENTRY,

    /**
     * A transaction is already active on the thread: admission would happen after the transaction began,
     * while its connection is held. Admit in a non-transactional entry method instead.
     */
    ACTIVE_TRANSACTION,

    /**
     * Inside the admitted region, a propagation that suspends the admitted transaction ({@code REQUIRES_NEW},
     * {@code NOT_SUPPORTED}) was requested: it would take a second connection while holding the first.
     */
    SUSPENDING_PROPAGATION
}
