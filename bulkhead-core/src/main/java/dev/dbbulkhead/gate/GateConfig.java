package dev.dbbulkhead.gate;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
    /** Default queue discipline: arrival order, as a fair semaphore. */
    public static final QueueDiscipline DEFAULT_QUEUE_DISCIPLINE = QueueDiscipline.FIFO;
    /** Default target delay of the CoDel discipline: CoDel's and folly's 5 ms. */
    public static final Duration DEFAULT_QUEUE_TARGET_DELAY = Duration.ofMillis(5);
    /** Default interval of the CoDel discipline: CoDel's and folly's 100 ms. */
    public static final Duration DEFAULT_QUEUE_INTERVAL = Duration.ofMillis(100);

    /** Default admission rules: none, so that the gate keeps its fast path and admits as it always has. */
    public static final AdmissionRules DEFAULT_ADMISSION_RULES = AdmissionRules.none();
    /** Default lending: none, so that the gate keeps its fast path and its places to itself. */
    public static final GateLending DEFAULT_LENDING = GateLending.none();

    private static final GateConfig DEFAULTS = builder().build();

    private final int maxConcurrent;
    private final int maxQueued;
    private final Duration queueWait;
    private final boolean captureStackTrace;
    private final QueueDiscipline queueDiscipline;
    private final Duration queueTargetDelay;
    private final Duration queueInterval;
    private final AdmissionRules admissionRules;
    private final GateLending lending;

    private GateConfig(Builder builder) {
        this.maxConcurrent = builder.maxConcurrent;
        this.maxQueued = builder.maxQueued;
        this.queueWait = builder.queueWait;
        this.captureStackTrace = builder.captureStackTrace;
        this.queueDiscipline = builder.queueDiscipline;
        this.queueTargetDelay = builder.queueTargetDelay;
        this.queueInterval = builder.queueInterval;
        this.admissionRules = builder.admissionRules;
        this.lending = builder.lending;
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
                .captureStackTrace(captureStackTrace)
                .queueDiscipline(queueDiscipline)
                .queueTargetDelay(queueTargetDelay)
                .queueInterval(queueInterval)
                .admissionRules(admissionRules)
                .lending(lending);
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

    /** How waiters are served. */
    public QueueDiscipline queueDiscipline() {
        return queueDiscipline;
    }

    /** The CoDel discipline's target: a queue whose every wait in an interval exceeds it stands. */
    public Duration queueTargetDelay() {
        return queueTargetDelay;
    }

    /** The CoDel discipline's interval: how long every wait must exceed the target before the queue stands. */
    public Duration queueInterval() {
        return queueInterval;
    }

    /**
     * Who gets the places when not everyone can: criticality reserves and fair shares between keys. Fixed when the
     * gate is built, as the queue discipline is; a resize keeps them, and applies them to the new limits.
     */
    public AdmissionRules admissionRules() {
        return admissionRules;
    }

    /**
     * Whether the gate lends its unused places to, and borrows beyond its B from, the other gates of its connection
     * pool. Fixed when the gate is built; a resize keeps it, and what the pool lends follows the B in force.
     */
    public GateLending lending() {
        return lending;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof GateConfig that
                && maxConcurrent == that.maxConcurrent
                && maxQueued == that.maxQueued
                && queueWait.equals(that.queueWait)
                && captureStackTrace == that.captureStackTrace
                && queueDiscipline == that.queueDiscipline
                && queueTargetDelay.equals(that.queueTargetDelay)
                && queueInterval.equals(that.queueInterval)
                && admissionRules.equals(that.admissionRules)
                && lending.equals(that.lending);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxConcurrent, maxQueued, queueWait, captureStackTrace, queueDiscipline,
                queueTargetDelay, queueInterval, admissionRules, lending);
    }

    @Override
    public String toString() {
        return "GateConfig[maxConcurrent=" + maxConcurrent + ", maxQueued=" + maxQueued
                + ", queueWait=" + queueWait + ", captureStackTrace=" + captureStackTrace
                + ", queueDiscipline=" + queueDiscipline + ", queueTargetDelay=" + queueTargetDelay
                + ", queueInterval=" + queueInterval
                + (admissionRules.isNone() ? "" : ", admissionRules=" + admissionRules)
                + (lending.isNone() ? "" : ", lending=" + lending) + "]";
    }

    /** Validates every value when it is set, and their combination when built. Not thread-safe. */
    public static final class Builder {

        private int maxConcurrent = DEFAULT_MAX_CONCURRENT;
        private int maxQueued = DEFAULT_MAX_QUEUED;
        private Duration queueWait = DEFAULT_QUEUE_WAIT;
        private boolean captureStackTrace = DEFAULT_CAPTURE_STACK_TRACE;
        private QueueDiscipline queueDiscipline = DEFAULT_QUEUE_DISCIPLINE;
        private Duration queueTargetDelay = DEFAULT_QUEUE_TARGET_DELAY;
        private Duration queueInterval = DEFAULT_QUEUE_INTERVAL;
        private AdmissionRules admissionRules = DEFAULT_ADMISSION_RULES;
        private GateLending lending = DEFAULT_LENDING;

        private Builder() {
        }

        /** B, at least 1. */
        public Builder maxConcurrent(int maxConcurrent) {
            this.maxConcurrent = GateRanges.requireMaxConcurrent(maxConcurrent);
            return this;
        }

        /** Q, at least 0. */
        public Builder maxQueued(int maxQueued) {
            this.maxQueued = GateRanges.requireMaxQueued(maxQueued);
            return this;
        }

        /** Zero or positive, and representable in nanoseconds (under about 292 years). */
        public Builder queueWait(Duration queueWait) {
            this.queueWait = GateRanges.requireQueueWait(queueWait);
            return this;
        }

        /** Whether rejections fill in their stack trace (default {@value #DEFAULT_CAPTURE_STACK_TRACE}). */
        public Builder captureStackTrace(boolean captureStackTrace) {
            this.captureStackTrace = captureStackTrace;
            return this;
        }

        /** How waiters are served (default {@link QueueDiscipline#FIFO}). */
        public Builder queueDiscipline(QueueDiscipline queueDiscipline) {
            if (queueDiscipline == null) {
                throw new IllegalArgumentException("queueDiscipline must be one of "
                        + Arrays.toString(QueueDiscipline.values()) + ", was null");
            }
            this.queueDiscipline = queueDiscipline;
            return this;
        }

        /** Positive, and representable in nanoseconds; at most the interval (checked when built). */
        public Builder queueTargetDelay(Duration queueTargetDelay) {
            this.queueTargetDelay = GateRanges.requirePositive("queueTargetDelay", queueTargetDelay);
            return this;
        }

        /** Positive, and representable in nanoseconds. */
        public Builder queueInterval(Duration queueInterval) {
            this.queueInterval = GateRanges.requirePositive("queueInterval", queueInterval);
            return this;
        }

        /** Criticality reserves and fair shares (default {@link AdmissionRules#none()}). */
        public Builder admissionRules(AdmissionRules admissionRules) {
            if (admissionRules == null) {
                throw new IllegalArgumentException("admissionRules must be rules or AdmissionRules.none(), was null");
            }
            this.admissionRules = admissionRules;
            return this;
        }

        /** Lending between the gates of one connection pool (default {@link GateLending#none()}). */
        public Builder lending(GateLending lending) {
            if (lending == null) {
                throw new IllegalArgumentException("lending must be a GateLending or GateLending.none(), was null");
            }
            this.lending = lending;
            return this;
        }

        /**
         * @throws IllegalArgumentException when B + Q exceeds {@link Integer#MAX_VALUE}, or the queue's target delay
         *                                  exceeds its interval
         */
        public GateConfig build() {
            GateRanges.requireAdmittedFits(maxConcurrent, maxQueued);
            GateRanges.requireTargetWithinInterval(queueTargetDelay, queueInterval);
            return new GateConfig(this);
        }
    }
}
