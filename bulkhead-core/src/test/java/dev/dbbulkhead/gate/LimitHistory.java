package dev.dbbulkhead.gate;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToIntFunction;

/**
 * A ghost of one gate's resizes, so that checks know which limits an observation may be held to.
 *
 * <p>Every resize publishes two generations: a transition generation with the larger of the old and new limits
 * (while the gate adjusts its semaphores either may be in force), then the new limits. A semaphore never lets the
 * number of holders grow past its capacity, and after a shrink the holders above the new capacity only drain; so
 * the holders at any moment are at most the largest limit of the generations since the oldest live holder was
 * admitted. A check passes the generation current before that holder asked to be admitted.
 *
 * <p>Resizes are recorded one at a time (an operator's and an adaptive limit's may race); readers may be any number
 * of threads.
 */
public final class LimitHistory {

    /** A plain class, not a record: Lincheck's instrumentation cannot take field offsets of record fields. */
    private static final class Limits {
        private final int maxConcurrent;
        private final int maxAdmitted;
        private final boolean transition;

        Limits(int maxConcurrent, int maxAdmitted, boolean transition) {
            this.maxConcurrent = maxConcurrent;
            this.maxAdmitted = maxAdmitted;
            this.transition = transition;
        }

        int maxConcurrent() {
            return maxConcurrent;
        }

        int maxAdmitted() {
            return maxAdmitted;
        }

        boolean transition() {
            return transition;
        }

        @Override
        public String toString() {
            return "B=" + maxConcurrent + ", B+Q=" + maxAdmitted + (transition ? " (resizing)" : "");
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
     * Reads the gate's permit counts while no resize is in progress (as a sequence lock does: the generation is
     * read before and after, and a changed or transition generation means the reading is not used) and checks
     * that the permits held are neither negative (a release too many) nor above the limits since generation
     * {@code since}.
     *
     * @return a description of the violation, or {@code null} when none was seen (or the reading was not used)
     */
    public String violationInGateFigures(AdmissionGate gate, int since) {
        Limits[] before = generations;
        Limits current = before[before.length - 1];
        if (current.transition()) {
            return null;
        }
        GateConfig config = gate.config();
        int executionHeld = config.maxConcurrent() - gate.availableExecutionPermits();
        int admissionHeld = config.maxAdmitted() - gate.availableAdmissionPermits();
        if (generations != before) {
            return null;
        }
        if (config.maxConcurrent() != current.maxConcurrent() || config.maxAdmitted() != current.maxAdmitted()) {
            return "gate " + gate.workload() + " reports " + config + " outside a resize, expected " + current;
        }
        int concurrentLimit = mostConcurrentSince(since);
        int admittedLimit = mostAdmittedSince(since);
        if (executionHeld < 0 || executionHeld > concurrentLimit) {
            return "gate " + gate.workload() + ": " + executionHeld + " execution permits held, B " + concurrentLimit;
        }
        if (admissionHeld < 0 || admissionHeld > admittedLimit) {
            return "gate " + gate.workload() + ": " + admissionHeld + " admission permits held, B+Q " + admittedLimit;
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
