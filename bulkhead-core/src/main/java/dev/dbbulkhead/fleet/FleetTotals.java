package dev.dbbulkhead.fleet;

import java.util.OptionalInt;

/**
 * Where a coordinator gets the fleet's total from: the connections the whole fleet may use for the next interval,
 * within its budget. A coordinator with none splits the budget itself. Asked by the renewal that finds the total due,
 * inside the fleet's serialised step, so it must answer at once: from what is already known, never by waiting.
 */
@FunctionalInterface
public interface FleetTotals {

    /**
     * The fleet's total for the next interval.
     *
     * @param fleet the fleet as the renewal found it
     * @return between 1 and {@link Fleet#budget()}; empty to hold {@link Fleet#total()}, when nothing current tells
     *         otherwise. A total out of that range holds it too, as does an exception: the fleet keeps its last total,
     *         which was safe, rather than lose its leases over a source's failure
     */
    OptionalInt next(Fleet fleet);

    /**
     * The fleet as one renewal finds it.
     *
     * @param total   the connections the fleet may use now, from 1 to the budget
     * @param budget  the most it may ever use
     * @param granted what the unexpired leases grant, together
     * @param demand  the most the members with unexpired leases could use, together
     */
    record Fleet(int total, int budget, int granted, int demand) {

        public Fleet {
            if (budget < 1 || total < 1 || total > budget || granted < 0 || demand < 0) {
                throw new IllegalArgumentException("budget must be at least 1, total from 1 to the budget, granted"
                        + " and demand at least 0, were " + budget + ", " + total + ", " + granted + ", " + demand);
            }
        }
    }
}
