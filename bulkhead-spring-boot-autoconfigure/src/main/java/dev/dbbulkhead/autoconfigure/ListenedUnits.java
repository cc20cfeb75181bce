package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.gate.RequestCommits;
import org.jspecify.annotations.Nullable;

/**
 * Units of background work whose framework tells, on the thread that runs them, when each run begins and ends — a
 * Spring Batch step, a Quartz job — tracked as the web filter tracks a request. A run that begins inside a unit
 * already tracked on its thread is part of it; its end closes only the unit its own beginning opened.
 */
final class ListenedUnits {

    private static final ThreadLocal<@Nullable Open> OPEN = new ThreadLocal<>();

    private record Open(Object run, RequestCommits.Scope scope) {
    }

    private ListenedUnits() {
    }

    /** {@code run} begins on this thread: a unit of its own unless one is tracked here already. */
    static void began(Object run) {
        if (!RequestCommits.isTracked()) {
            OPEN.set(new Open(run, RequestCommits.track()));
        }
    }

    /** {@code run} ended on this thread: closes the unit its beginning opened, if it opened one. */
    static void ended(Object run) {
        Open open = OPEN.get();
        if (open != null && open.run() == run) {
            OPEN.remove();
            open.scope().close();
        }
    }
}
