package dev.dbbulkhead.gate;

import java.time.Duration;
import java.util.Objects;

/**
 * The limits of one bulkhead: B execution permits, Q more admissions, and how long an admitted
 * operation may wait for an execution permit. Immutable; built and validated by {@link #builder()}.
 */
public final class GateConfig {

    /** Default B: HikariCP's default pool size, so the gate and an untuned pool agree. */
    public static final int DEFAULT_MAX_CONCURRENT = 10;
    /** Default Q: no queue. Overload is refused at once unless a queue is asked for. */
    public static final int DEFAULT_MAX_QUEUED = 0;
    /** Default queue wait: none. Only matters once Q is above zero. */
    public static final Duration DEFAULT_QUEUE_WAIT = Duration.ZERO;
    /** Rejections skip their stack trace unless asked: shedding must stay cheap. */
    public static final boolean DEFAULT_CAPTURE_STACK_TRACE = false;

    private static final GateConfig DEFAULTS = builder().build();

    private final int maxConcurrent;
    private final int maxQueued;
    private final Duration queueWait;
    private final boolean captureStackTrace;

    private GateConfig(Builder builder) {
        this.maxConcurrent = builder.maxConcurrent;
        this.maxQueued = builder.maxQueued;
        this.queueWait = builder.queueWait;
        this.captureStackTrace = builder.captureStackTrace;
    }

    /** The defaults: {@value #DEFAULT_MAX_CONCURRENT} concurrent, {@value #DEFAULT_MAX_QUEUED} queued, no wait. */
    public static GateConfig defaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder()
                .maxConcurrent(maxConcurrent)
                .maxQueued(maxQueued)
                .queueWait(queueWait)
                .captureStackTrace(captureStackTrace);
    }

    /** B: operations that may run at once, from requesting the connection to its cleanup. */
    public int maxConcurrent() {
        return maxConcurrent;
    }

    /** Q: operations admitted beyond B that may wait for an execution permit. */
    public int maxQueued() {
        return maxQueued;
    }

    /** B + Q: every operation inside the gate, running or waiting. Never overflows (checked when built). */
    public int maxAdmitted() {
        return maxConcurrent + maxQueued;
    }

    /** The longest an admitted operation waits for an execution permit; zero means it never waits. */
    public Duration queueWait() {
        return queueWait;
    }

    /** Whether rejections fill in their stack trace. */
    public boolean captureStackTrace() {
        return captureStackTrace;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof GateConfig that
                && maxConcurrent == that.maxConcurrent
                && maxQueued == that.maxQueued
                && queueWait.equals(that.queueWait)
                && captureStackTrace == that.captureStackTrace;
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxConcurrent, maxQueued, queueWait, captureStackTrace);
    }

    @Override
    public String toString() {
        return "GateConfig[maxConcurrent=" + maxConcurrent + ", maxQueued=" + maxQueued
                + ", queueWait=" + queueWait + ", captureStackTrace=" + captureStackTrace + "]";
    }

    /** Validates every value when it is set, and their combination when built. Not thread-safe. */
    public static final class Builder {

        private int maxConcurrent = DEFAULT_MAX_CONCURRENT;
        private int maxQueued = DEFAULT_MAX_QUEUED;
        private Duration queueWait = DEFAULT_QUEUE_WAIT;
        private boolean captureStackTrace = DEFAULT_CAPTURE_STACK_TRACE;

        private Builder() {
        }

        /** B, at least 1. */
        public Builder maxConcurrent(int maxConcurrent) {
            this.maxConcurrent = GateLimits.requireMaxConcurrent(maxConcurrent);
            return this;
        }

        /** Q, at least 0. */
        public Builder maxQueued(int maxQueued) {
            this.maxQueued = GateLimits.requireMaxQueued(maxQueued);
            return this;
        }

        /** Zero or positive, and representable in nanoseconds (under about 292 years). */
        public Builder queueWait(Duration queueWait) {
            this.queueWait = GateLimits.requireQueueWait(queueWait);
            return this;
        }

        /** Whether rejections fill in their stack trace (default {@value #DEFAULT_CAPTURE_STACK_TRACE}). */
        public Builder captureStackTrace(boolean captureStackTrace) {
            this.captureStackTrace = captureStackTrace;
            return this;
        }

        /** @throws IllegalArgumentException when B + Q exceeds {@link Integer#MAX_VALUE} */
        public GateConfig build() {
            GateLimits.requireAdmittedFits(maxConcurrent, maxQueued);
            return new GateConfig(this);
        }
    }
}
