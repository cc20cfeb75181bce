package dev.dbbulkhead.fleet;

/**
 * What a coordinator heard of its fleet since a member's last renewal, without asking its store
 * ({@link FleetCoordinator#newsFor}): one answer, so that a coordinator which wraps another and forwards it forwards
 * all of it, and one which does not forward it answers {@link #MAY_HAVE_CHANGED}, which costs renewals and never a
 * missed change.
 */
public sealed interface FleetNews {

    /** The coordinator cannot tell, or heard that the fleet changed: the member renews. */
    FleetNews MAY_HAVE_CHANGED = new MayHaveChanged();

    /** Nothing changed, and the coordinator would have heard of a change: a settled member may rest. */
    FleetNews UNCHANGED = new Unchanged();

    /** The coordinator cannot tell, or heard that the fleet changed. */
    record MayHaveChanged() implements FleetNews {
    }

    /** Nothing changed, and the coordinator would have heard of a change. */
    record Unchanged() implements FleetNews {
    }

    /**
     * Only the fleet's total moved, and it was announced with its value: a resting member follows it within its grant
     * without renewing, and renews when its target of it is more than its lease grants.
     *
     * @param total the fleet's newest total, at least 1 (the coordinator keeps it within the budget)
     */
    record TotalMoved(int total) implements FleetNews {

        public TotalMoved {
            if (total < 1) {
                throw new IllegalArgumentException("total must be at least 1, was " + total);
            }
        }
    }
}
