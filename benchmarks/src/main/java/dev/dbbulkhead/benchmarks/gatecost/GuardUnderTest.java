package dev.dbbulkhead.benchmarks.gatecost;

/** One admission guard, reduced to what the gate-cost benchmarks measure. */
public interface GuardUnderTest extends AutoCloseable {

    /**
     * Admits one empty operation and releases it at once.
     *
     * @return {@code null} when admitted, else what the guard refused with (its exception, or {@code FALSE} for a
     *         guard that refuses without one), so that the benchmark consumes it
     */
    Object admitRelease();

    /** Admits, runs {@code body} while holding the admission, releases. Refusals are thrown. */
    void holdWhile(Runnable body);

    /** Frees what the guard set up (a Spring context, for instance). */
    @Override
    default void close() {
    }
}
