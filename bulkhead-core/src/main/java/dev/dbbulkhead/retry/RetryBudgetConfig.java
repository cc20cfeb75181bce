package dev.dbbulkhead.retry;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How much a workload may retry, and how retries are spread out: a share of the first attempts over a sliding
 * window plus a floor, as Finagle's retry budget; and the base and cap of the jittered exponential backoff. Immutable;
 * built and validated by {@link #builder()}.
 */
public final class RetryBudgetConfig {

    /**
     * Default share of first attempts that may be retried: 10 %, half of Finagle's 20 %, so that with the floor the
     * offered load stays within 1.2 × the first attempts from 100 first attempts a second up.
     */
    public static final double DEFAULT_PERCENT_CAN_RETRY = 0.1;
    /** Default floor: Finagle's 10 retries a second, so a quiet workload can still retry its rare failures. */
    public static final int DEFAULT_MIN_RETRIES_PER_SECOND = 10;
    /** Default window over which first attempts and retries are counted: Finagle's 10 s. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);
    /** Default backoff before the first retry, at most: long enough for a deadlock's other side to commit. */
    public static final Duration DEFAULT_BACKOFF_BASE = Duration.ofMillis(10);
    /** Default longest backoff: a retry later than this rarely still serves its caller. */
    public static final Duration DEFAULT_BACKOFF_CAP = Duration.ofSeconds(1);

    /** The shortest window: a tenth of it is one bucket, and buckets under 100 ms would cost a clock tick each. */
    public static final Duration MIN_WINDOW = Duration.ofSeconds(1);
    /** The longest window: a budget that remembers more than an hour no longer follows the load. */
    public static final Duration MAX_WINDOW = Duration.ofHours(1);
    /** The shortest backoff base or cap. */
    public static final Duration MIN_BACKOFF = Duration.ofMillis(1);
    /** The longest backoff base or cap: no caller waits longer for a retry. */
    public static final Duration MAX_BACKOFF = Duration.ofHours(1);

    private static final RetryBudgetConfig DEFAULTS = builder().build();

    private final double percentCanRetry;
    private final int minRetriesPerSecond;
    private final Duration window;
    private final Duration backoffBase;
    private final Duration backoffCap;

    private RetryBudgetConfig(Builder builder) {
        this.percentCanRetry = builder.percentCanRetry;
        this.minRetriesPerSecond = builder.minRetriesPerSecond;
        this.window = builder.window;
        this.backoffBase = builder.backoffBase;
        this.backoffCap = builder.backoffCap;
    }

    /** 10 % of first attempts plus Finagle's floor of 10 retries a second over 10 s; backoff 10 ms to 1 s. */
    public static RetryBudgetConfig defaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder()
                .percentCanRetry(percentCanRetry)
                .minRetriesPerSecond(minRetriesPerSecond)
                .window(window)
                .backoffBase(backoffBase)
                .backoffCap(backoffCap);
    }

    /** The share of first attempts in the window that may be retried, from 0 to 1. */
    public double percentCanRetry() {
        return percentCanRetry;
    }

    /** The floor, per second: retries allowed even when no first attempt was seen. */
    public int minRetriesPerSecond() {
        return minRetriesPerSecond;
    }

    /** The sliding window over which first attempts and retries are counted, in whole milliseconds. */
    public Duration window() {
        return window;
    }

    /** The floor over the whole window: {@link #minRetriesPerSecond()} times the window's seconds, rounded down. */
    public long minRetriesPerWindow() {
        // At most 2^31 retries a second times 3.6e6 ms: far inside a long, so no exact arithmetic is needed.
        return (long) minRetriesPerSecond * window.toMillis() / 1000;
    }

    /** The longest backoff before the first retry; each later retry may wait up to twice as long, up to the cap. */
    public Duration backoffBase() {
        return backoffBase;
    }

    /** The longest backoff before any retry. */
    public Duration backoffCap() {
        return backoffCap;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof RetryBudgetConfig that
                && Double.compare(percentCanRetry, that.percentCanRetry) == 0
                && minRetriesPerSecond == that.minRetriesPerSecond
                && window.equals(that.window)
                && backoffBase.equals(that.backoffBase)
                && backoffCap.equals(that.backoffCap);
    }

    @Override
    public int hashCode() {
        return Objects.hash(percentCanRetry, minRetriesPerSecond, window, backoffBase, backoffCap);
    }

    @Override
    public String toString() {
        return "RetryBudgetConfig[percentCanRetry=" + percentCanRetry + ", minRetriesPerSecond=" + minRetriesPerSecond
                + ", window=" + window + ", backoffBase=" + backoffBase + ", backoffCap=" + backoffCap + "]";
    }

    /** Validates every value when it is set, and their combination when built. Not thread-safe. */
    public static final class Builder {

        private double percentCanRetry = DEFAULT_PERCENT_CAN_RETRY;
        private int minRetriesPerSecond = DEFAULT_MIN_RETRIES_PER_SECOND;
        private Duration window = DEFAULT_WINDOW;
        private Duration backoffBase = DEFAULT_BACKOFF_BASE;
        private Duration backoffCap = DEFAULT_BACKOFF_CAP;

        private Builder() {
        }

        /** From 0 (only the floor) to 1 (one retry per first attempt), both included. */
        public Builder percentCanRetry(double percentCanRetry) {
            // Written so that NaN fails too: every comparison with NaN is false.
            if (!(percentCanRetry >= 0.0 && percentCanRetry <= 1.0)) {
                throw new IllegalArgumentException("percentCanRetry must be between 0.0 and 1.0, was "
                        + percentCanRetry);
            }
            this.percentCanRetry = percentCanRetry;
            return this;
        }

        /** At least 0; 0 means no retry without first attempts to pay for it. */
        public Builder minRetriesPerSecond(int minRetriesPerSecond) {
            if (minRetriesPerSecond < 0) {
                throw new IllegalArgumentException("minRetriesPerSecond must be between 0 and " + Integer.MAX_VALUE
                        + ", was " + minRetriesPerSecond);
            }
            this.minRetriesPerSecond = minRetriesPerSecond;
            return this;
        }

        /** From {@link #MIN_WINDOW} to {@link #MAX_WINDOW}, in whole milliseconds. */
        public Builder window(Duration window) {
            Duration checked = requireBetween("window", window, MIN_WINDOW, MAX_WINDOW);
            if (checked.toNanosPart() % 1_000_000 != 0) {
                throw new IllegalArgumentException("window must be between " + MIN_WINDOW + " and " + MAX_WINDOW
                        + " in whole milliseconds, was " + window);
            }
            this.window = checked;
            return this;
        }

        /** From {@link #MIN_BACKOFF} to {@link #MAX_BACKOFF}; at most the cap (checked when built). */
        public Builder backoffBase(Duration backoffBase) {
            this.backoffBase = requireBetween("backoffBase", backoffBase, MIN_BACKOFF, MAX_BACKOFF);
            return this;
        }

        /** From {@link #MIN_BACKOFF} to {@link #MAX_BACKOFF}. */
        public Builder backoffCap(Duration backoffCap) {
            this.backoffCap = requireBetween("backoffCap", backoffCap, MIN_BACKOFF, MAX_BACKOFF);
            return this;
        }

        /** @throws IllegalArgumentException when the backoff base exceeds its cap */
        public RetryBudgetConfig build() {
            if (backoffBase.compareTo(backoffCap) > 0) {
                throw new IllegalArgumentException("backoffBase must be between " + MIN_BACKOFF + " and backoffCap "
                        + backoffCap + ", was " + backoffBase);
            }
            return new RetryBudgetConfig(this);
        }

        private static Duration requireBetween(String name, @Nullable Duration value, Duration min, Duration max) {
            if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
                throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", was " + value);
            }
            return value;
        }
    }
}
