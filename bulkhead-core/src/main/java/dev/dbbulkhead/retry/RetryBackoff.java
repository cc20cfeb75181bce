package dev.dbbulkhead.retry;

import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongUnaryOperator;

/**
 * How long to wait before a retry: exponential backoff with full jitter, a uniform draw from
 * {@code [0, min(cap, base × 2^attempt)]}, never longer than the time the caller has left. Spreading the draw over
 * the whole range keeps callers refused together from coming back together. Stateless apart from the randomness;
 * shared by every thread.
 */
public final class RetryBackoff {

    /** The answer when the time left cannot cover the backoff base: do not retry. */
    public static final long NO_TIME_LEFT = -1;

    private final long baseNanos;
    private final long capNanos;
    private final LongUnaryOperator uniformUpTo;

    /** Backoff between the base and cap of {@code config}, drawn from {@link ThreadLocalRandom}. */
    public RetryBackoff(RetryBudgetConfig config) {
        this(config, bound -> ThreadLocalRandom.current().nextLong(bound + 1));
    }

    /** Backoff drawing from {@code uniformUpTo}, which maps a bound to a value from 0 to that bound, both included. */
    RetryBackoff(RetryBudgetConfig config, LongUnaryOperator uniformUpTo) {
        this.baseNanos = config.backoffBase().toNanos();
        this.capNanos = config.backoffCap().toNanos();
        this.uniformUpTo = Objects.requireNonNull(uniformUpTo, "uniformUpTo");
    }

    /**
     * @param attempt        which retry is next, counting from 0: the first retry waits up to the base, each later one
     *                       up to twice as long as the one before, up to the cap
     * @param remainingNanos the time the caller has left, {@link Long#MAX_VALUE} when it has no deadline
     * @return nanoseconds to wait before the retry, from 0 to the least of the cap, {@code base × 2^attempt} and
     *         {@code remainingNanos}; or {@link #NO_TIME_LEFT} when {@code remainingNanos} is less than the base: the
     *         retry would start with less time than the shortest wait this backoff plans for, so it should not be made
     * @throws IllegalArgumentException when {@code attempt} is negative
     */
    public long nanosUntilNext(int attempt, long remainingNanos) {
        if (attempt < 0) {
            throw new IllegalArgumentException("attempt must be between 0 and " + Integer.MAX_VALUE + ", was "
                    + attempt);
        }
        if (remainingNanos < baseNanos) {
            return NO_TIME_LEFT;
        }
        return uniformUpTo.applyAsLong(Math.min(ceiling(attempt), remainingNanos));
    }

    /** {@code min(cap, base × 2^attempt)}, saturating at the cap instead of overflowing. */
    private long ceiling(int attempt) {
        // base × 2^attempt fits a long while the shift leaves the sign bit clear.
        if (attempt >= Long.numberOfLeadingZeros(baseNanos) - 1) {
            return capNanos;
        }
        return Math.min(capNanos, baseNanos << attempt);
    }
}
