package dev.dbbulkhead.gate;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToIntFunction;

/**
 * A ghost of one gate's resizes, so that checks know which limits an observation may be held to.
 *
 * <p>The one-word gate changes its limits in one step — one write that replaces both, read afresh by every
 * admission decision — and never touches its counts: after a shrink the counts may stay above the new limits until
 * the operations already inside drain, and nothing new enters meanwhile. So the operations inside at any moment are
 * at most the largest limit in force since the oldest of them asked to be admitted.
 *
 * <p>That step happens somewhere inside {@link AdmissionGate#resize(int, int)}, which the ghost cannot see. Each
 * resize therefore publishes two generations around the call: before it, one with the larger of the old and new value
 * of each limit (the step is after this publication, and whichever limits an admission read then are at most these);
 * after it, the new limits, which the gate then has. A check passes the generation current before the operation it
 * covers asked to be admitted.
 *
 * <p>Resizes are recorded one at a time (an operator's and an adaptive limit's may race); readers may be any number
 * of threads.
 */
public final class LimitHistory {

    /** A plain class, not a record: Lincheck's instrumentation cannot take field offsets of record fields. */
    private static final class Limits {
        private final int maxConcurrent;
        private final int maxAdmitted;
        private final boolean aroundAResize;

        Limits(int maxConcurrent, int maxAdmitted, boolean aroundAResize) {
            this.maxConcurrent = maxConcurrent;
            this.maxAdmitted = maxAdmitted;
            this.aroundAResize = aroundAResize;
        }

        int maxConcurrent() {
            return maxConcurrent;
        }

        int maxAdmitted() {
            return maxAdmitted;
        }

        @Override
        public String toString() {
            return "B=" + maxConcurrent + ", B+Q=" + maxAdmitted + (aroundAResize ? " (resizing)" : "");
        }
    }

    /** Copied on each resize; readers see a whole array, the last element being the current generation. */
    private volatile Limits[] generations;
    private int lastMaxConcurrent;
    private int lastMaxQueued;
    private final ReentrantLock resizing = new ReentrantLock();

    public LimitHistory(int maxConcurrent, int maxQueued) {
        generations = new Limits[] {new Limits(maxConcurrent, maxConcurrent + maxQueued, false)};
        lastMaxConcurrent = maxConcurrent;
        lastMaxQueued = maxQueued;
    }

    /** Resizes {@code gate} and records the limits around it. */
    public void resize(AdmissionGate gate, int maxConcurrent, int maxQueued) {
        resizing.lock();
        try {
            record(maxConcurrent, maxQueued, () -> gate.resize(maxConcurrent, maxQueued));
        } finally {
            resizing.unlock();
        }
    }

    /**
     * Resizes B of {@code gate} through {@link AdmissionGate#resizeConcurrent}, as an adaptive limit does, and
     * records it with Q as last recorded (every resize of the gate goes through this history).
     */
    public void resizeConcurrent(AdmissionGate gate, int maxConcurrent) {
        resizing.lock();
        try {
            record(maxConcurrent, lastMaxQueued, () -> gate.resizeConcurrent(maxConcurrent));
        } finally {
            resizing.unlock();
        }
    }

    private void record(int maxConcurrent, int maxQueued, Runnable resize) {
        Limits before = generations[generations.length - 1];
        Limits after = new Limits(maxConcurrent, maxConcurrent + maxQueued, false);
        publish(new Limits(Math.max(before.maxConcurrent(), after.maxConcurrent()),
                Math.max(before.maxAdmitted(), after.maxAdmitted()), true));
        resize.run();
        publish(after);
        lastMaxConcurrent = maxConcurrent;
        lastMaxQueued = maxQueued;
    }

    private void publish(Limits limits) {
        Limits[] current = generations;
        Limits[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = limits;
        generations = next;
    }

    /** The generation in force now; pass it to the checks of an operation about to be admitted. */
    public int currentGeneration() {
        return generations.length - 1;
    }

    /** The largest B of the generations from {@code since} to now. */
    public int mostConcurrentSince(int since) {
        return mostSince(since, Limits::maxConcurrent);
    }

    /** The largest B + Q of the generations from {@code since} to now. */
    public int mostAdmittedSince(int since) {
        return mostSince(since, Limits::maxAdmitted);
    }

    private int mostSince(int since, ToIntFunction<Limits> limit) {
        Limits[] all = generations;
        int most = 0;
        for (int g = since; g < all.length; g++) {
            most = Math.max(most, limit.applyAsInt(all[g]));
        }
        return most;
    }

    /** B of the last resize (or of the start). */
    public int lastMaxConcurrent() {
        return lastMaxConcurrent;
    }

    /** Q of the last resize (or of the start). */
    public int lastMaxQueued() {
        return lastMaxQueued;
    }

    /** How many resizes were recorded. */
    public int resizes() {
        return (generations.length - 1) / 2;
    }

    /**
     * Checks the gate's counts, read at one instant, against the limits since generation {@code since}: neither
     * negative (a release too many) nor above the largest B, or B + Q, in force since then. And, when no resize was
     * under way while it looked (the generation read before and after is the same, and is not around a resize), that
     * the limits the gate reports are the current generation's.
     *
     * @return a description of the violation, or {@code null} when none was seen
     */
    public String violationInGateFigures(AdmissionGate gate, int since) {
        Limits[] before = generations;
        long snapshot = gate.countsSnapshot();
        GateConfig config = gate.config();
        int running = AdmissionCounts.running(snapshot);
        int admitted = AdmissionCounts.admitted(snapshot);
        int concurrentLimit = mostConcurrentSince(since);
        int admittedLimit = mostAdmittedSince(since);
        if (running < 0 || running > concurrentLimit) {
            return "gate " + gate.workload() + ": " + running + " running, B " + concurrentLimit;
        }
        if (admitted < running || admitted > admittedLimit) {
            return "gate " + gate.workload() + ": " + admitted + " admitted (" + running + " running), B+Q "
                    + admittedLimit;
        }
        Limits current = before[before.length - 1];
        if (generations == before && !current.aroundAResize
                && (config.maxConcurrent() != current.maxConcurrent() || config.maxAdmitted() != current.maxAdmitted())) {
            return "gate " + gate.workload() + " reports " + config + " outside a resize, expected " + current;
        }
        return null;
    }

    /** {@link #violationInGateFigures} as an assertion. */
    public void checkGateFigures(AdmissionGate gate, int since) {
        String violation = violationInGateFigures(gate, since);
        if (violation != null) {
            throw new AssertionError(violation);
        }
    }
}
