package dev.dbbulkhead.gate;

/**
 * The span of a binding to the thread that made it ({@link RequestDeadline#bind()}, {@link OperationClass#bind()}):
 * closed on that thread only, and once; closing restores what was bound before. Each binding says what it restores.
 */
public abstract class BindingScope implements AutoCloseable {

    private final Thread owner = Thread.currentThread();
    private boolean closed;

    /** Made only by the bindings of this package, on the thread that binds. */
    BindingScope() {
    }

    /** What was bound, for the message of a close on another thread: "A request deadline", say. */
    abstract String binding();

    /** Puts back what was bound before the scope; called once, on the binding thread. */
    abstract void restore();

    /**
     * Restores what was bound before this scope. A second close does nothing.
     *
     * @throws IllegalStateException when called on another thread than the one that bound it: the binding belongs to
     *                               that thread
     */
    @Override
    public final void close() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException(binding() + " bound on " + owner
                    + " must be unbound on that thread, was closed on " + Thread.currentThread());
        }
        if (!closed) {
            closed = true;
            restore();
        }
    }
}
