package dev.dbbulkhead.limit;

import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateRanges;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The bounds of an adaptive concurrency limit: it never goes below {@link #minConcurrent()} nor above
 * {@link #maxConcurrent()}, and it measures the no-load hold time again every {@link #probeInterval()}. Immutable;
 * built and validated by {@link #builder()}.
 */
public final class AdaptiveLimitConfig {

    /** Default floor: one operation at a time still makes progress. */
    public static final int DEFAULT_MIN_CONCURRENT = GateRanges.MIN_MAX_CONCURRENT;
    /** Default ceiling: the gate's own default B. */
    public static final int DEFAULT_MAX_CONCURRENT = GateConfig.DEFAULT_MAX_CONCURRENT;
    /**
     * Default time between two measurements of the no-load hold time: rare enough that the short dip to
     * {@code minConcurrent} costs little, often enough to follow a changed query plan within minutes.
     */
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofMinutes(1);

    private final int minConcurrent;
    private final int maxConcurrent;
    private final Duration probeInterval;

    private AdaptiveLimitConfig(Builder builder) {
        this.minConcurrent = builder.minConcurrent;
        this.maxConcurrent = builder.maxConcurrent;
        this.probeInterval = builder.probeInterval;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The floor of the limit, at least 1. */
    public int minConcurrent() {
        return minConcurrent;
    }

    /** The ceiling of the limit, at least {@link #minConcurrent()}: the most B the limit ever lets run. */
    public int maxConcurrent() {
        return maxConcurrent;
    }

    /** Time between two measurements of the no-load hold time. */
    public Duration probeInterval() {
        return probeInterval;
    }

    /**
     * @return {@code startConcurrent} when it lies within the bounds
     * @throws IllegalArgumentException naming the value and the bounds otherwise
     */
    public int requireWithin(int startConcurrent) {
        if (startConcurrent < minConcurrent || startConcurrent > maxConcurrent) {
            throw new IllegalArgumentException("the starting limit (B) must be between minConcurrent " + minConcurrent
                    + " and maxConcurrent " + maxConcurrent + ", was " + startConcurrent);
        }
        return startConcurrent;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof AdaptiveLimitConfig that && minConcurrent == that.minConcurrent
                && maxConcurrent == that.maxConcurrent && probeInterval.equals(that.probeInterval);
    }

    @Override
    public int hashCode() {
        return Objects.hash(minConcurrent, maxConcurrent, probeInterval);
    }

    @Override
    public String toString() {
        return "AdaptiveLimitConfig[minConcurrent=" + minConcurrent + ", maxConcurrent=" + maxConcurrent
                + ", probeInterval=" + probeInterval + "]";
    }

    /** Validates every value when it is set, and their combination when built. Not thread-safe. */
    public static final class Builder {

        private int minConcurrent = DEFAULT_MIN_CONCURRENT;
        private int maxConcurrent = DEFAULT_MAX_CONCURRENT;
        private Duration probeInterval = DEFAULT_PROBE_INTERVAL;

        private Builder() {
        }

        /** The floor, at least 1. */
        public Builder minConcurrent(int minConcurrent) {
            if (minConcurrent < GateRanges.MIN_MAX_CONCURRENT) {
                throw new IllegalArgumentException("minConcurrent must be between " + GateRanges.MIN_MAX_CONCURRENT
                        + " and " + Integer.MAX_VALUE + ", was " + minConcurrent);
            }
            this.minConcurrent = minConcurrent;
            return this;
        }

        /** The ceiling, at least 1 (and at least the floor, checked when built). */
        public Builder maxConcurrent(int maxConcurrent) {
            this.maxConcurrent = GateRanges.requireMaxConcurrent(maxConcurrent);
            return this;
        }

        /** Positive, and representable in nanoseconds (under about 292 years). */
        public Builder probeInterval(Duration probeInterval) {
            if (probeInterval == null || probeInterval.isNegative() || probeInterval.isZero()
                    || probeInterval.compareTo(Duration.ofNanos(Long.MAX_VALUE)) > 0) {
                throw new IllegalArgumentException("probeInterval must be positive and at most "
                        + Duration.ofNanos(Long.MAX_VALUE) + ", was " + probeInterval);
            }
            this.probeInterval = probeInterval;
            return this;
        }

        /** @throws IllegalArgumentException when the floor is above the ceiling */
        public AdaptiveLimitConfig build() {
            if (minConcurrent > maxConcurrent) {
                throw new IllegalArgumentException("minConcurrent must be at most maxConcurrent " + maxConcurrent
                        + ", was " + minConcurrent);
            }
            return new AdaptiveLimitConfig(this);
        }
    }
}
