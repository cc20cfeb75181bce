package dev.dbbulkhead.gate;

import dev.dbbulkhead.BulkheadRejectedException;

/**
 * Counts the operations of one request that committed, so that a refusal the request meets later can tell its
 * caller that the request is part done ({@link BulkheadRejectedException#committedBefore()}). Every gated operation is
 * a transaction of its own: a request of three operations refused at its third has committed the first two, and a
 * client that retries the whole request writes them twice.
 *
 * <p>Tracked per thread for a scope ({@link #track()}), opened by whatever knows where a request begins and ends — the
 * Spring Boot starter's filter, for every HTTP request. An operation counts once its permit is given back with the
 * outcome {@code COMMITTED}, or {@code UNKNOWN} (its commit failed without telling whether it took effect). Work done
 * on another thread, or outside a gate, is not counted. Costs one field update per committed operation.
 */
public final class RequestCommits {

    /** The count of a thread with no request tracked. */
    static final int NOT_TRACKED = -1;

    private RequestCommits() {
    }

    /**
     * Starts counting the commits of a request on the current thread, from zero, until the returned scope is closed by
     * this thread; closing it restores what was tracked before (the count of an enclosing request, or none).
     */
    public static Scope track() {
        ThreadRecord record = ThreadRecord.current();
        Scope scope = new Scope(record, record.requestCommits(), record.requestOperations());
        record.requestCommits(0);
        record.requestOperations(0);
        return scope;
    }

    /**
     * Whether a request — a unit of work — is tracked on the current thread: work that begins inside one (a scheduled
     * method called from a request, say) is part of it rather than a unit of its own.
     */
    public static boolean isTracked() {
        return ThreadRecord.current().requestCommits() != NOT_TRACKED;
    }

    /** The operations of the tracked request that committed so far; zero when none did or no request is tracked. */
    public static int count() {
        return Math.max(0, ThreadRecord.current().requestCommits());
    }

    /** The span of a {@link #track()}: closing it, on the thread that opened it, restores what was tracked before. */
    public static final class Scope extends BindingScope {

        private final ThreadRecord record;
        private final int previous;
        private final int previousOperations;

        private Scope(ThreadRecord record, int previous, int previousOperations) {
            this.record = record;
            this.previous = previous;
            this.previousOperations = previousOperations;
        }

        @Override
        String binding() {
            return "A request's commit count";
        }

        @Override
        void restore() {
            record.requestCommits(previous);
            record.requestOperations(previousOperations);
        }
    }
}
