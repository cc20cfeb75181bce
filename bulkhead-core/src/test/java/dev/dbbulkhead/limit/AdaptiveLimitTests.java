package dev.dbbulkhead.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The mechanism on a real gate, fed releases by hand on a fake clock. */
class AdaptiveLimitTests {

    private static final long MS = 1_000_000L;
    private static final long NO_LOAD = 2 * MS;
    private static final String WORKLOAD = "orders";

    private final AdaptiveLimitConfig bounds = AdaptiveLimitConfig.builder().minConcurrent(1).maxConcurrent(12)
            .build();
    private final List<LimitChange> changes = new ArrayList<>();
    private long now = 5_000 * MS;
    private final AdaptiveLimit limit = new AdaptiveLimit(bounds, 12, changes::add, () -> now);
    private final AdmissionGate gate = new AdmissionGate(WORKLOAD,
            GateConfig.builder().maxConcurrent(12).maxQueued(7).build(), limit);

    {
        limit.drive(gate);
    }

    private void release(ExecutionOutcome outcome, long held) {
        now += held;
        limit.onReleased(WORKLOAD, outcome, held);
    }

    private void probe() {
        release(ExecutionOutcome.COMMITTED, NO_LOAD);
        for (int i = 0; i < GradientLimit.PROBE_SAMPLES; i++) {
            release(ExecutionOutcome.COMMITTED, NO_LOAD);
        }
    }

    /** Windows of committed operations holding {@code held}, each just over the shortest window time. */
    private void windows(int count, long held) {
        long spacing = GradientLimit.WINDOW_MILLIS * MS / (GradientLimit.WINDOW_MIN_SAMPLES - 1) + 1;
        for (int i = 0; i < count * GradientLimit.WINDOW_MIN_SAMPLES; i++) {
            now += spacing;
            limit.onReleased(WORKLOAD, ExecutionOutcome.COMMITTED, held);
        }
    }

    @Test
    @DisplayName("the limit moves the gate's B through its non-blocking resize, and leaves Q as configured")
    void movesBAndKeepsQ() {
        limit.onReleased(WORKLOAD, ExecutionOutcome.COMMITTED, NO_LOAD);
        assertThat(gate.config().maxConcurrent()).as("pinned to the floor while probing").isEqualTo(1);
        for (int i = 0; i < GradientLimit.PROBE_SAMPLES; i++) {
            release(ExecutionOutcome.COMMITTED, NO_LOAD);
        }
        assertThat(gate.config().maxConcurrent()).as("back to the learnt limit").isEqualTo(12);

        windows(40, 20 * NO_LOAD);

        assertThat(gate.config().maxConcurrent()).isEqualTo(1).isEqualTo(limit.snapshot().concurrent());
        assertThat(gate.config().maxQueued()).isEqualTo(7);
        assertThat(limit.snapshot().noLoadNanos()).isEqualTo(NO_LOAD);
        assertThat(limit.snapshot().observedNanos()).isEqualTo(20 * NO_LOAD);

        windows(40, NO_LOAD);

        assertThat(gate.config().maxConcurrent()).isEqualTo(12);
        assertThat(gate.config().maxQueued()).isEqualTo(7);
    }

    @Test
    @DisplayName("the limit asks for B through the gate's ceiling, so a cap holds whatever it learns; it steers once")
    void aCapHoldsWhateverTheLimitLearnsAndTheLimitSteersOnce() {
        ConcurrencyCeiling ceiling = ConcurrencyCeiling.of(gate);
        ceiling.limitTo(5);

        probe();

        assertThat(gate.config().maxConcurrent()).as("capped").isEqualTo(5);
        assertThat(ceiling.requested()).as("back to the learnt limit").isEqualTo(12);
        assertThat(ceiling.learnt()).isTrue();
        assertThatIllegalStateException().isThrownBy(() -> limit.drive(gate))
                .withMessageContaining("already steers");
    }

    @Test
    @DisplayName("rolled-back operations are the caller's: however slow, they never lower the limit")
    void rollbacksDoNotCount() {
        probe();
        for (int i = 0; i < 50 * GradientLimit.WINDOW_MIN_SAMPLES; i++) {
            now += 20 * MS;
            limit.onReleased(WORKLOAD, ExecutionOutcome.ROLLED_BACK, 1_000 * NO_LOAD);
        }
        assertThat(limit.snapshot().observedNanos()).isZero();
        assertThat(gate.config().maxConcurrent()).isEqualTo(12);
    }

    @Test
    @DisplayName("a failed connection request and a lost commit count as the database's slowness")
    void failuresOfTheDatabaseCount() {
        probe();
        for (int w = 0; w < 20; w++) {
            now += GradientLimit.WINDOW_MILLIS * MS;
            for (int i = 0; i < GradientLimit.WINDOW_MIN_SAMPLES; i++) {
                release(i % 2 == 0 ? ExecutionOutcome.FAILED : ExecutionOutcome.UNKNOWN, 30 * NO_LOAD);
            }
        }
        assertThat(gate.config().maxConcurrent()).isEqualTo(1);
    }

    @Test
    @DisplayName("a burst of changes is told once, when the limit has stayed put for the quiet time")
    void oneChangePerBurst() {
        probe();
        windows(60, 20 * NO_LOAD);
        assertThat(changes).hasSize(1);
        LimitChange lowered = changes.getFirst();
        assertThat(lowered.workload()).isEqualTo(WORKLOAD);
        assertThat(lowered.from()).isEqualTo(12);
        assertThat(lowered.to()).isEqualTo(1);
        assertThat(lowered.tookNanos()).isPositive();

        windows(60, 20 * NO_LOAD);
        assertThat(changes).as("nothing moved").hasSize(1);

        windows(60, NO_LOAD);
        assertThat(changes).hasSize(2);
        assertThat(changes.get(1).from()).isEqualTo(1);
        assertThat(changes.get(1).to()).isEqualTo(12);
    }

    @Test
    @DisplayName("the starting B must lie within the floor and the ceiling")
    void startWithinBounds() {
        assertThatIllegalArgumentException().isThrownBy(() -> new AdaptiveLimit(bounds, 13, changes::add))
                .withMessage("the starting limit (B) must be between minConcurrent 1 and maxConcurrent 12, was 13");
    }

    @Test
    @DisplayName("bad bounds are refused with the name, the value and the allowed range")
    void badBounds() {
        assertThatIllegalArgumentException().isThrownBy(() -> AdaptiveLimitConfig.builder().minConcurrent(0))
                .withMessage("minConcurrent must be between 1 and 2147483647, was 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> AdaptiveLimitConfig.builder().minConcurrent(5).maxConcurrent(4).build())
                .withMessage("minConcurrent must be at most maxConcurrent 4, was 5");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> AdaptiveLimitConfig.builder().probeInterval(Duration.ZERO))
                .withMessageStartingWith("probeInterval must be positive and at most PT2562047H47M16.854775807S,"
                        + " was PT0S");
    }
}
