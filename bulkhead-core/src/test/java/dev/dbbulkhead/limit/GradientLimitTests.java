package dev.dbbulkhead.limit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The policy alone, driven by hand-made samples on a fake clock: every figure here is exact. */
class GradientLimitTests {

    private static final long MS = 1_000_000L;
    private static final long NO_LOAD = 4 * MS;

    private final AdaptiveLimitConfig bounds = AdaptiveLimitConfig.builder()
            .minConcurrent(2).maxConcurrent(20).probeInterval(Duration.ofSeconds(60)).build();
    private GradientLimit limit = new GradientLimit(bounds, 20);
    /** The fake clock, in nanoseconds. */
    private long now = 1_000 * MS;

    /** {@code count} operations ending {@code spacing} apart, each having held its permit {@code held}. */
    private boolean feed(int count, long held, long spacing) {
        boolean decided = false;
        for (int i = 0; i < count; i++) {
            now += spacing;
            decided |= limit.onSample(now, held);
        }
        return decided;
    }

    /** Ends the first probe with a no-load hold time of {@link #NO_LOAD}. */
    private void probe() {
        limit.onSample(now, NO_LOAD);
        feed(GradientLimit.PROBE_SAMPLES, NO_LOAD, NO_LOAD);
    }

    /** One full window: {@link GradientLimit#WINDOW_MIN_SAMPLES} operations over just over the window time. */
    private void window(long held) {
        long spacing = GradientLimit.WINDOW_MILLIS * MS / (GradientLimit.WINDOW_MIN_SAMPLES - 1) + 1;
        assertThat(feed(GradientLimit.WINDOW_MIN_SAMPLES, held, spacing)).as("window closed").isTrue();
    }

    @Test
    @DisplayName("the first sample pins the limit to the floor until 16 operations admitted after the pin have ended")
    void firstSampleStartsAProbe() {
        assertThat(limit.concurrent()).isEqualTo(20);

        assertThat(limit.onSample(now, 50 * MS)).isTrue();
        assertThat(limit.snapshot().probing()).isTrue();
        assertThat(limit.concurrent()).isEqualTo(2);
        assertThat(limit.learnt()).isEqualTo(20);

        // Admitted before the pin (they held longer than the time since it): left out.
        assertThat(feed(40, 10_000 * MS, MS)).isFalse();
        assertThat(feed(GradientLimit.PROBE_SAMPLES - 1, NO_LOAD, NO_LOAD)).isFalse();
        assertThat(limit.onSample(now += NO_LOAD, NO_LOAD)).isTrue();

        assertThat(limit.snapshot()).isEqualTo(new LimitSnapshot(20, 20, 20.0, NO_LOAD, 0, false));
    }

    @Test
    @DisplayName("a window needs both 100 ms and 10 operations before it decides")
    void windowNeedsTimeAndOperations() {
        probe();
        assertThat(feed(200, 80 * MS, 0)).as("200 operations in no time").isFalse();
        assertThat(feed(1, 80 * MS, GradientLimit.WINDOW_MILLIS * MS)).isTrue();

        assertThat(feed(GradientLimit.WINDOW_MIN_SAMPLES - 1, 80 * MS, 1_000 * MS)).as("9 operations over 9 s")
                .isFalse();
        assertThat(feed(1, 80 * MS, MS)).isTrue();
    }

    @Test
    @DisplayName("a database queueing the work lowers the limit, at most by half a window, never below the floor")
    void queueingLowersTheLimitDownToTheFloor() {
        probe();
        double before = limit.snapshot().limit();
        window(10 * NO_LOAD);
        // gradient kept at 0.5: target = (20 + sqrt(20)) x 0.5; the limit moves half way there.
        double target = before * GradientLimit.MIN_GRADIENT + Math.sqrt(before) * GradientLimit.MIN_GRADIENT;
        assertThat(limit.snapshot().limit()).isEqualTo(before + GradientLimit.SMOOTHING * (target - before));
        assertThat(limit.snapshot().observedNanos()).isEqualTo(10 * NO_LOAD);

        for (int i = 0; i < 40; i++) {
            window(100 * NO_LOAD);
        }
        assertThat(limit.concurrent()).isEqualTo(2);
        assertThat(limit.snapshot().limit()).isEqualTo(2.0);
    }

    @Test
    @DisplayName("hold times back at the no-load time grow the limit back, never above the ceiling")
    void recoveryGrowsTheLimitUpToTheCeiling() {
        probe();
        for (int i = 0; i < 40; i++) {
            window(100 * NO_LOAD);
        }
        assertThat(limit.concurrent()).isEqualTo(2);

        int previous = limit.concurrent();
        for (int i = 0; i < 40; i++) {
            window(NO_LOAD);
            assertThat(limit.concurrent()).isGreaterThanOrEqualTo(previous);
            previous = limit.concurrent();
        }
        assertThat(limit.concurrent()).isEqualTo(20);
        assertThat(limit.snapshot().limit()).isEqualTo(20.0);
    }

    @Test
    @DisplayName("a single slow transaction in a window moves nothing: the window's median decides")
    void oneSlowTransactionMovesNothing() {
        double withoutOutlier = limitAfterAWindowWithOneOperationHolding(2 * NO_LOAD);
        double withOutlier = limitAfterAWindowWithOneOperationHolding(1_000 * NO_LOAD);

        assertThat(withOutlier).isEqualTo(withoutOutlier).isLessThan(20.0);
    }

    /** A fresh limit, lowered for a while, then one window of 2 x no-load times but for one operation. */
    private double limitAfterAWindowWithOneOperationHolding(long held) {
        limit = new GradientLimit(bounds, 20);
        probe();
        for (int i = 0; i < 3; i++) {
            window(4 * NO_LOAD);
        }
        feed(1, held, MS);
        window(2 * NO_LOAD);
        assertThat(limit.snapshot().observedNanos()).isEqualTo(2 * NO_LOAD);
        return limit.snapshot().limit();
    }

    @Test
    @DisplayName("hold times within the tolerance of the no-load time keep a limit at its fixed point")
    void steadyStateHoldsWithinTolerance() {
        probe();
        // Operations sharing 2 CPUs: the hold time grows with the limit past 2, so the gradient is 2.5 / L and the
        // fixed point of target = 2.5 + sqrt(L) x 2.5 / L is about 3.8: the limit settles at 4 and stays.
        for (int i = 0; i < 60; i++) {
            double observed = NO_LOAD * Math.max(1.0, limit.snapshot().limit() / 2);
            window((long) observed);
        }
        assertThat(limit.concurrent()).isEqualTo(4);
        int settled = limit.concurrent();
        for (int i = 0; i < 20; i++) {
            window((long) (NO_LOAD * Math.max(1.0, limit.snapshot().limit() / 2)));
            assertThat(limit.concurrent()).isEqualTo(settled);
        }
    }

    @Test
    @DisplayName("the no-load hold time is measured again every probe interval, learning a slower normal")
    void probesAgainAfterTheInterval() {
        probe();
        for (int i = 0; i < 10; i++) {
            window(3 * NO_LOAD);
        }
        assertThat(limit.snapshot().probing()).isFalse();

        now += Duration.ofSeconds(60).toNanos();
        window(3 * NO_LOAD);
        assertThat(limit.snapshot().probing()).isTrue();
        assertThat(limit.concurrent()).isEqualTo(2);
        int learnt = limit.learnt();

        feed(GradientLimit.PROBE_SAMPLES, 3 * NO_LOAD, 3 * NO_LOAD);
        assertThat(limit.snapshot().probing()).isFalse();
        assertThat(limit.snapshot().noLoadNanos()).isEqualTo(3 * NO_LOAD);
        assertThat(limit.concurrent()).isEqualTo(learnt);
        window(3 * NO_LOAD);
        assertThat(limit.concurrent()).isGreaterThan(learnt);
    }
}
