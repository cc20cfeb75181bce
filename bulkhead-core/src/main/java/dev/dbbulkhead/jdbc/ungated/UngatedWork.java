package dev.dbbulkhead.jdbc.ungated;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Work the application means to run outside the gates, recognised as such by every pool's detector: its borrows
 * are counted as recognised, never reported nor refused. The scope is the current thread's while the work runs;
 * a thread the work starts is not in it.
 *
 * <p>This is also how infrastructure is recognised where it begins — the health endpoint, the transaction a test
 * framework begins around a test — so that a borrow outside every admitted operation need not read its stack to tell
 * it apart from the application's work: the scope names the rule its borrows are counted under.
 */
public final class UngatedWork {

    /** The rule of the current thread's allowed work; read only on a borrow outside every gate. */
    private static final ThreadLocal<String> ALLOWED = new ThreadLocal<>();

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
        return allow(RULE, work);
    }

    /**
     * Runs {@code work} on the current thread, its borrows outside the gates recognised and counted under
     * {@code rule}; returns its value. An inner scope's rule counts its borrows; the outer one's is back after it.
     */
    public static <T extends @Nullable Object, E extends Exception> T allow(String rule, Work<T, E> work) throws E {
        try (Scope scope = open(rule)) {
            return work.call();
        }
    }

    /**
     * Opens a scope of allowed work on the current thread, its borrows counted under {@code rule}, for work that
     * begins and ends in separate callbacks (a test framework's); {@link #allow} for work that one call holds.
     * The scope must be closed on the thread that opened it.
     */
    public static Scope open(String rule) {
        Objects.requireNonNull(rule, "rule");
        Scope scope = new Scope(ALLOWED.get());
        ALLOWED.set(rule);
        return scope;
    }

    /** A scope of allowed work; closing it again does nothing. */
    public static final class Scope implements AutoCloseable {

        private final @Nullable String outer;
        private boolean closed;

        private Scope(@Nullable String outer) {
            this.outer = outer;
        }

        /** Ends the scope: the rule of the scope it was opened in, if any, is the thread's again. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (outer == null) {
                ALLOWED.remove();
            } else {
                ALLOWED.set(outer);
            }
        }
    }

    /** The rule of the allowed work the current thread runs; {@code null} when it runs none. */
    static @Nullable String allowedRule() {
        return ALLOWED.get();
    }
}
