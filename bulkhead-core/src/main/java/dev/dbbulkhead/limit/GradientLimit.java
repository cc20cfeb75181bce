package dev.dbbulkhead.limit;

import java.util.Arrays;

/**
 * The policy of an adaptive concurrency limit: from the time each admitted operation held its execution permit,
 * how many operations to let run at once. It knows no gate, no clock and no framework — time comes with each
 * sample — and is not thread-safe: {@link AdaptiveLimit} hands it one sample at a time.
 *
 * <p>A gradient controller against a measured no-load hold time, after Netflix concurrency-limits' gradient limits
 * and Envoy's adaptive concurrency filter:
 * <ol>
 *   <li><b>No-load hold time.</b> First, and then every {@linkplain AdaptiveLimitConfig#probeInterval() probe
 *       interval}, the limit is pinned to {@linkplain AdaptiveLimitConfig#minConcurrent() its floor} until
 *       {@value #PROBE_SAMPLES} operations admitted after the pin have ended: the median of their hold times is
 *       the database's answer when it is not queueing our work. A long-run average would not do: started in
 *       overload, it would learn the overload as normal.</li>
 *   <li><b>Observed hold time.</b> Between probes, hold times are gathered in windows of at least
 *       {@value #WINDOW_MILLIS} ms and {@value #WINDOW_MIN_SAMPLES} operations; the window's median is the observed
 *       time, so one slow transaction moves nothing.</li>
 *   <li><b>New limit.</b> {@code gradient = noLoad × }{@value #TOLERANCE}{@code  / observed}, kept within
 *       [{@value #MIN_GRADIENT}, {@value #MAX_GRADIENT}]; {@code target = limit × gradient + √limit × min(1, gradient)}
 *       — the square root is the few operations allowed to queue in the database, as Vegas's α, and it shrinks
 *       while the database queues (with all of it, a database that keeps queueing would hold the limit near 4,
 *       where {@code 0.5 × limit + √limit = limit}); the limit moves
 *       {@value #SMOOTHING} of the way to the target, and stays within the floor and the ceiling.</li>
 * </ol>
 * When the database queues our work the observed time grows past the no-load time, the gradient falls below 1
 * and the limit with it, at most by half a window; when it stops, the gradient returns to 1 or above and the
 * square root grows the limit back.
 */
final class GradientLimit {

    /** The shortest window, in milliseconds: long enough for a median of a few operations. */
    public static final long WINDOW_MILLIS = 100;
    /** The fewest operations a window decides on. */
    public static final int WINDOW_MIN_SAMPLES = 10;
    /** A window closes at this many operations however young it is, keeping the memory bounded. */
    public static final int WINDOW_MAX_SAMPLES = 256;
    /** Operations, admitted after the pin, whose median is the no-load hold time. */
    public static final int PROBE_SAMPLES = 16;
    /** Hold times up to this factor of the no-load time count as no queueing: noise must not lower the limit. */
    public static final double TOLERANCE = 1.25;
    /** The gradient's floor: one window at most halves the limit's part of the target... */
    public static final double MIN_GRADIENT = 0.5;
    /** ...and its ceiling: at most doubles it. */
    public static final double MAX_GRADIENT = 2.0;
    /** The share of the way to the target the limit moves per window. */
    public static final double SMOOTHING = 0.5;

    private static final long WINDOW_NANOS = WINDOW_MILLIS * 1_000_000L;

    private final int minConcurrent;
    private final int maxConcurrent;
    private final long probeIntervalNanos;
    private final long[] samples = new long[WINDOW_MAX_SAMPLES];
    private int sampleCount;
    private long windowStartedAt;
    private double limit;
    private long noLoadNanos;
    private long observedNanos;
    private boolean started;
    private boolean probing;
    private long probeStartedAt;
    private long nextProbeAt;

    /**
     * @param config          the floor, the ceiling and the probe interval
     * @param startConcurrent the limit to start from, within the bounds
     * @throws IllegalArgumentException when {@code startConcurrent} is out of the bounds
     */
    public GradientLimit(AdaptiveLimitConfig config, int startConcurrent) {
        this.minConcurrent = config.minConcurrent();
        this.maxConcurrent = config.maxConcurrent();
        this.probeIntervalNanos = config.probeInterval().toNanos();
        this.limit = config.requireWithin(startConcurrent);
    }

    /**
     * Takes the hold time of one operation that ended at {@code nowNanos}.
     *
     * @param nowNanos  when the operation ended, on a monotonic clock ({@link System#nanoTime()})
     * @param heldNanos how long it held its execution permit
     * @return whether a probe began or ended or a window closed: only then may {@link #concurrent()} have changed
     */
    public boolean onSample(long nowNanos, long heldNanos) {
        if (!started) {
            started = true;
            startProbe(nowNanos);
            return true;
        }
        if (probing) {
            return probeSample(nowNanos, heldNanos);
        }
        if (sampleCount == 0) {
            windowStartedAt = nowNanos;
        }
        samples[sampleCount++] = heldNanos;
        if (sampleCount < WINDOW_MAX_SAMPLES
                && (sampleCount < WINDOW_MIN_SAMPLES || nowNanos - windowStartedAt < WINDOW_NANOS)) {
            return false;
        }
        observedNanos = medianAndClear();
        if (nowNanos - nextProbeAt >= 0) {
            startProbe(nowNanos);
        } else {
            adjust(observedNanos);
        }
        return true;
    }

    private boolean probeSample(long nowNanos, long heldNanos) {
        if (nowNanos - heldNanos - probeStartedAt < 0) {
            // Admitted before the pin, it ran among more than the floor allows: not a no-load time.
            return false;
        }
        samples[sampleCount++] = heldNanos;
        if (sampleCount < PROBE_SAMPLES) {
            return false;
        }
        noLoadNanos = Math.max(1L, medianAndClear());
        probing = false;
        nextProbeAt = nowNanos + probeIntervalNanos;
        return true;
    }

    private void startProbe(long nowNanos) {
        probing = true;
        probeStartedAt = nowNanos;
        sampleCount = 0;
    }

    private void adjust(long observed) {
        double gradient = Math.max(MIN_GRADIENT, Math.min(MAX_GRADIENT, noLoadNanos * TOLERANCE / observed));
        // The queue allowed shrinks with the gradient: a database already queueing our work gets less of it.
        double target = limit * gradient + Math.sqrt(limit) * Math.min(1.0, gradient);
        limit = Math.max(minConcurrent, Math.min(maxConcurrent, limit + SMOOTHING * (target - limit)));
    }

    private long medianAndClear() {
        Arrays.sort(samples, 0, sampleCount);
        long median = samples[sampleCount / 2];
        sampleCount = 0;
        return Math.max(1L, median);
    }

    /** The limit to apply now: the floor during a probe, else the learnt limit. */
    public int concurrent() {
        return probing ? minConcurrent : learnt();
    }

    /** The learnt limit, rounded to whole operations; kept through a probe. */
    public int learnt() {
        return (int) Math.round(limit);
    }

    /** What the policy knows now. */
    public LimitSnapshot snapshot() {
        return new LimitSnapshot(concurrent(), learnt(), limit, noLoadNanos, observedNanos, probing);
    }
}
