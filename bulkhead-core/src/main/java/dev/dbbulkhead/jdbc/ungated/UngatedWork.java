package dev.dbbulkhead.jdbc.ungated;

import org.jspecify.annotations.Nullable;

/**
 * Work the application means to run outside the gates, recognised as such by every pool's detector: its borrows
 * are counted as recognised, never reported nor refused. The scope is the current thread's while the work runs;
 * a thread the work starts is not in it.
 */
public final class UngatedWork {

    /** Whether the current thread runs allowed work; read only on a borrow outside every gate. */
    private static final ThreadLocal<Boolean> ALLOWED = new ThreadLocal<>();

    /** The rule that {@link UngatedConnectionReport#recognised()} counts this scope's borrows under. */
    public static final String RULE = "UngatedWork.allow";

    private UngatedWork() {
    }

    /**
     * The work of {@link #allow}: returns a value, may throw.
     *
     * @param <T> the value
     * @param <E> what it may throw
     */
    @FunctionalInterface
    public interface Work<T extends @Nullable Object, E extends Exception> {
        T call() throws E;
    }

    /** Runs {@code work} on the current thread, its borrows outside the gates recognised; returns its value. */
    public static <T extends @Nullable Object, E extends Exception> T allow(Work<T, E> work) throws E {
        Boolean outer = ALLOWED.get();
        ALLOWED.set(Boolean.TRUE);
        try {
            return work.call();
        } finally {
            if (outer == null) {
                ALLOWED.remove();
            }
        }
    }

    static boolean allowedOnCurrentThread() {
        return ALLOWED.get() != null;
    }
}
