package dev.dbbulkhead.limit;

/**
 * One burst of changes of a learnt limit: changes less than {@link AdaptiveLimit#BURST_QUIET_MILLIS} apart, told
 * once the limit has stayed put that long.
 *
 * @param workload  the workload whose limit moved
 * @param from      the learnt limit before the burst
 * @param to        the learnt limit after it
 * @param tookNanos from the first change of the burst to the decision that found it over
 * @param state     what the limit knew when the burst ended
 */
public record LimitChange(String workload, int from, int to, long tookNanos, LimitSnapshot state) {
}
