package dev.dbbulkhead.budget;

/**
 * One thing the start-up budget check found wrong, with its numbers.
 *
 * @param kind    what kind of finding
 * @param message what was found, with the arithmetic, and what it means
 */
public record BudgetFinding(Kind kind, String message) {

    /** The findings the check knows. */
    public enum Kind {
        /** The workloads sharing a pool may run more operations at once than it has connections. */
        POOL_OVERCOMMITTED,
        /** One workload alone may run more operations at once than its pool has connections. */
        WORKLOAD_EXCEEDS_POOL,
        /** A pool has connections no gate bounds: work outside the gates can take them, and all the others too. */
        UNGATED_CONNECTIONS,
        /** A workload's deadline is shorter than its pool's connection timeout. */
        DEADLINE_SHORTER_THAN_POOL_WAIT,
        /** The whole fleet may open more connections than the database accepts. */
        FLEET_OVER_CONNECTION_LIMIT,
        /** The fleet check could not read a pool's server: unreachable at start-up, or not PostgreSQL. */
        FLEET_UNCHECKED,
        /**
         * Open-session-in-view keeps a web request's connection after the gate's commit gave the permit back, and
         * lazy loads while the response is written take connections no gate bounds.
         */
        OPEN_SESSION_IN_VIEW
    }

    @Override
    public String toString() {
        return kind + ": " + message;
    }
}
