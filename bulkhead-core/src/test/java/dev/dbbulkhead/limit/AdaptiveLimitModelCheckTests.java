package dev.dbbulkhead.limit;

import static dev.dbbulkhead.gate.GateModelSteps.check;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateModelSteps;
import dev.dbbulkhead.gate.LimitHistory;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of the gate while an adaptive limit moves its B: admissions, releases and observations
 * of three threads interleave with the limit learning (on a fake clock, so every run is the same) and resizing the
 * gate from inside its lock, under every interleaving the model checker explores. Every resize is recorded in a
 * {@link LimitHistory}, so the checks know which B an operation may be held to.
 */
public class AdaptiveLimitModelCheckTests {

    private static final int START = 2;
    private static final int QUEUED = 1;
    private static final long MS = 1_000_000L;
    private static final long FAST = MS;
    private static final long SLOW = 50 * MS;
    /** Long enough never to expire in a model run. */
    private static final Duration QUEUE_WAIT = Duration.ofHours(1);

    private final AdmissionGate gate = new AdmissionGate("model", GateConfig.builder()
            .maxConcurrent(START).maxQueued(QUEUED).queueWait(QUEUE_WAIT).build());
    private final LimitHistory limits = new LimitHistory(START, QUEUED);
    private long clock;
    private int lessons;
    private final AdaptiveLimit limit = new AdaptiveLimit(AdaptiveLimitConfig.builder().minConcurrent(1)
            .maxConcurrent(START).build(), START, change -> { }, () -> clock);
    private final AtomicInteger running = new AtomicInteger();

    {
        // Taught before the threads start (a long loop inside an operation would look like a livelock to the model
        // checker): the no-load time is probed, then slow windows bring the limit just above the rounding edge, so
        // that one slow window of learn() takes B from 2 to 1 and one fast window takes it back.
        feed(GradientLimit.PROBE_SAMPLES + 1, FAST);
        while (limit.snapshot().limit() > 1.6) {
            feed(GradientLimit.WINDOW_MIN_SAMPLES, SLOW);
        }
        limit.drive(concurrent -> limits.resizeConcurrent(gate, concurrent));
    }

    private void feed(int operations, long held) {
        for (int i = 0; i < operations; i++) {
            clock += 20 * MS + held;
            limit.onReleased("model", ExecutionOutcome.COMMITTED, held);
        }
    }

    /** Admits (waiting in the fair queue if need be), checks the limits while running, releases. */
    @Operation
    public void enterRunAndLeave() {
        GateModelSteps.enterRunAndLeave(gate, limits, running);
    }

    /**
     * One window of releases of one learner, on the fake clock, alternately slow (B from 2 to 1) and fast (back to
     * 2): the limit resizes the gate from inside its lock while other threads are in the gate.
     */
    @Operation(nonParallelGroup = "learner")
    public void learn() {
        feed(GradientLimit.WINDOW_MIN_SAMPLES, lessons++ % 2 == 0 ? SLOW : FAST);
    }

    /** The figures a metrics gauge reads, at any moment: never negative, never past any limit. */
    @Operation
    public void observe() {
        GateModelSteps.observe(gate, limits);
    }

    @Validate
    public void everyPermitIsBackAndTheLimitsLastChangeIsInForce() {
        GateModelSteps.checkNoRuleBroken();
        GateConfig config = gate.config();
        check(config.maxConcurrent() == limit.snapshot().concurrent()
                        && config.maxConcurrent() == limits.lastMaxConcurrent() && config.maxQueued() == QUEUED,
                "the gate's " + config + " is not the limit's " + limit.snapshot());
        GateModelSteps.checkIdle(gate);
    }

    @Test
    @DisplayName("model checking: an adaptive limit resizing B under admissions, fair waits and releases keeps B and B+Q")
    void modelCheck() {
        GateModelSteps.modelCheck(AdaptiveLimitModelCheckTests.class, 0, 1);
    }
}
