package dev.dbbulkhead.fleet;

/**
 * Something of this instance that uses the fleet share: its gates, its connection pool. The member applies every
 * change of the share to each target before it gives anything back to the fleet, and only after the fleet granted
 * it before it grows.
 */
public interface ShareTarget {

    /**
     * Bounds this target by {@code connections}, at once and without blocking.
     *
     * @param connections the instance's connections now, at least 1
     * @return whether the target can serve with that many (false when, for example, a workload would get none)
     */
    boolean apply(int connections);

    /** Connections this target holds right now, even above its bound while work drains; 0 when it holds none. */
    default int connectionsInUse() {
        return 0;
    }
}
