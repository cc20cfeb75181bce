package dev.dbbulkhead.gate;

import static dev.dbbulkhead.gate.GateModelSteps.check;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of the gate under the {@linkplain QueueDiscipline#CODEL CoDel discipline}: the
 * invariants of {@link AdmissionGateModelCheckTests} — B and B + Q against the ghost of the resizes, release-once, no
 * leak, no thread blocked for ever — with the waiters in the CoDel queue, handed their slots by releases and grows.
 *
 * <p>The queue's clock ticks one nanosecond at each read, with a target delay and an interval of 2 ns, so that within
 * one run the queue stands and stops standing again, and waiters are shed. (The clock is an atomic counter, so every
 * run of one interleaving reads the same times.) The queue wait never ends in a model run; a shed waiter is refused,
 * which the steps accept as any refusal. Which end of the queue is served is checked by {@code CoDelQueueTests}:
 * at these ticks a waiter old enough for the queue to stand is mostly shed before a grant.
 */
@Param(name = "maxConcurrent", gen = IntGen.class, conf = "1:2")
@Param(name = "maxQueued", gen = IntGen.class, conf = "0:2")
@Timeout(value = 15, unit = TimeUnit.MINUTES) // only against a hang of the harness; Lincheck reports a blocked model thread itself
public class AdmissionGateCoDelModelCheckTests {

    private static final int INITIAL_MAX_CONCURRENT = 1;
    /** Two waiters behind one running operation: enough for the queue's two ends to differ. */
    private static final int INITIAL_MAX_QUEUED = 2;

    private final AtomicLong ticks = new AtomicLong();
    private final AdmissionGate gate = new AdmissionGate("codel", GateConfig.builder()
            .maxConcurrent(INITIAL_MAX_CONCURRENT)
            .maxQueued(INITIAL_MAX_QUEUED)
            .queueWait(Duration.ofHours(1))
            .queueDiscipline(QueueDiscipline.CODEL)
            .queueTargetDelay(Duration.ofNanos(2))
            .queueInterval(Duration.ofNanos(2))
            .build(), GateListener.NONE, ticks::incrementAndGet);
    private final LimitHistory limits = new LimitHistory(INITIAL_MAX_CONCURRENT, INITIAL_MAX_QUEUED);
    private final AtomicInteger running = new AtomicInteger();

    /**
     * Admits (waiting in the CoDel queue if need be), checks the limits while running, releases twice; then checks
     * what a gauge of the queue reads. (No separate observer: with two kinds of operation, scenarios with three
     * operations inside at once — one running, two queued, the queue's two ends apart — come often enough.)
     */
    @Operation
    public void enterRunAndLeave() {
        GateModelSteps.enterRunAndLeave(gate, limits, running);
        int queued = gate.queueLength();
        check(queued >= 0 && queued <= limits.mostAdmittedSince(0), "queueLength() = " + queued);
    }

    /** Only one resize at a time, as in {@link AdmissionGateModelCheckTests}: a grow hands its room to waiters. */
    @Operation(nonParallelGroup = "resize")
    public void resize(@Param(name = "maxConcurrent") int maxConcurrent, @Param(name = "maxQueued") int maxQueued) {
        limits.resize(gate, maxConcurrent, maxQueued);
    }

    @Validate
    public void everyPermitIsBackAndTheLastResizeIsInForce() {
        GateModelSteps.checkLastResizeInForceAndIdle(gate, limits, QueueDiscipline.CODEL);
    }

    @Test
    @DisplayName("model checking: the CoDel queue's hand-overs, sheds and grows keep B and B+Q, release once and leak nothing, under all explored interleavings")
    void modelCheck() {
        GateModelSteps.modelCheck(AdmissionGateCoDelModelCheckTests.class, 1, 1);
    }
}
