package dev.dbbulkhead.limit;

/**
 * What an adaptive limit knows at one moment.
 *
 * @param concurrent    the limit in force: the floor during a probe, else {@code learnt}
 * @param learnt        the learnt limit in whole operations
 * @param limit         the learnt limit before rounding
 * @param noLoadNanos   the median hold time measured by the last probe; 0 before the first probe ended
 * @param observedNanos the median hold time of the last window; 0 before the first window closed
 * @param probing       whether the no-load hold time is being measured now
 */
public record LimitSnapshot(int concurrent, int learnt, double limit, long noLoadNanos, long observedNanos,
                            boolean probing) {
}
