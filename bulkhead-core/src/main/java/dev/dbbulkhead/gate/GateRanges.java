package dev.dbbulkhead.gate;

import java.time.Duration;

/**
 * The allowed ranges of the gate's limits, in one place, so the builder, a run-time resize and the
 * Spring properties all refuse the same values with the same words.
 */
public final class GateRanges {

    /** The smallest B. A gate that admits nothing would be a switch, not a bulkhead. */
    public static final int MIN_MAX_CONCURRENT = 1;
    /** The smallest Q. */
    public static final int MIN_MAX_QUEUED = 0;

    private GateRanges() {
    }

    /** @return {@code maxConcurrent} when it is at least 1 */
    public static int requireMaxConcurrent(int maxConcurrent) {
        if (maxConcurrent < MIN_MAX_CONCURRENT) {
            throw new IllegalArgumentException("maxConcurrent (B) must be between " + MIN_MAX_CONCURRENT
                    + " and " + Integer.MAX_VALUE + ", was " + maxConcurrent);
        }
        return maxConcurrent;
    }

    /** @return {@code maxQueued} when it is at least 0 */
    public static int requireMaxQueued(int maxQueued) {
        if (maxQueued < MIN_MAX_QUEUED) {
            throw new IllegalArgumentException("maxQueued (Q) must be between " + MIN_MAX_QUEUED
                    + " and " + Integer.MAX_VALUE + ", was " + maxQueued);
        }
        return maxQueued;
    }

    /** @return {@code queueWait} when it is zero or positive and fits in a {@code long} of nanoseconds */
    public static Duration requireQueueWait(Duration queueWait) {
        if (queueWait == null || queueWait.isNegative()) {
            throw new IllegalArgumentException("queueWait must be zero or positive, was " + queueWait);
        }
        return requireNanosecondsFit("queueWait", queueWait);
    }

    /** @return {@code budget} when it is positive and fits in a {@code long} of nanoseconds */
    public static Duration requireBudget(Duration budget) {
        return requirePositive("deadline", budget);
    }

    /** @return {@code duration} when it is positive and fits in a {@code long} of nanoseconds */
    public static Duration requirePositive(String name, Duration duration) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + duration);
        }
        return requireNanosecondsFit(name, duration);
    }

    /**
     * Refuses a target delay longer than its interval: the queue could then never be seen standing for a whole
     * interval before a single wait had outlasted it.
     */
    public static void requireTargetWithinInterval(Duration queueTargetDelay, Duration queueInterval) {
        if (queueTargetDelay.compareTo(queueInterval) > 0) {
            throw new IllegalArgumentException("queueTargetDelay must be between 1ns and queueInterval "
                    + queueInterval + ", was " + queueTargetDelay);
        }
    }

    private static Duration requireNanosecondsFit(String name, Duration duration) {
        try {
            duration.toNanos();
        } catch (ArithmeticException tooLong) {
            throw new IllegalArgumentException(name + " must be at most " + Duration.ofNanos(Long.MAX_VALUE)
                    + ", was " + duration, tooLong);
        }
        return duration;
    }

    /** B + Q in exact arithmetic; a sum past {@link Integer#MAX_VALUE} is refused, never wrapped. */
    public static int requireAdmittedFits(int maxConcurrent, int maxQueued) {
        try {
            return Math.addExact(maxConcurrent, maxQueued);
        } catch (ArithmeticException overflow) {
            throw new IllegalArgumentException("maxConcurrent (B) + maxQueued (Q) must be at most "
                    + Integer.MAX_VALUE + ", was " + maxConcurrent + " + " + maxQueued
                    + " = " + ((long) maxConcurrent + maxQueued), overflow);
        }
    }
}
