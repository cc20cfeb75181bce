package dev.dbbulkhead.gate;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of the gate: operations of three threads run under every interleaving the model checker
 * explores (bounded by the scenario counts below), with the invariants checked inside the operations and after them.
 *
 * <p>Every operation returns nothing and ends with nothing held (a permit is owned by a thread, and Lincheck reuses
 * its threads), so the sequential specification is trivially met: a run fails only when an invariant assertion
 * throws, when a thread blocks for ever, or when {@link #everyPermitIsBackAndTheLastResizeIsInForce()} finds a
 * leak. The limits an operation may see come from {@link LimitHistory}, a ghost of the resizes.
 */
@Param(name = "maxConcurrent", gen = IntGen.class, conf = "1:2")
@Param(name = "maxQueued", gen = IntGen.class, conf = "0:1")
public class AdmissionGateModelCheckTest {

    /** Long enough never to expire in a model run: an admitted waiter is always handed a permit eventually. */
    private static final Duration QUEUE_WAIT = Duration.ofHours(1);
    private static final int INITIAL_MAX_CONCURRENT = 1;
    private static final int INITIAL_MAX_QUEUED = 1;

    private final AdmissionGate gate = new AdmissionGate("model", GateConfig.builder()
            .maxConcurrent(INITIAL_MAX_CONCURRENT)
            .maxQueued(INITIAL_MAX_QUEUED)
            .queueWait(QUEUE_WAIT)
            .build());
    private final LimitHistory limits = new LimitHistory(INITIAL_MAX_CONCURRENT, INITIAL_MAX_QUEUED);
    private final AtomicInteger running = new AtomicInteger();

    /** Admits (waiting in the fair queue if need be), checks the limits while running, releases twice. */
    @Operation
    public void enterRunAndLeave() {
        GateModelSteps.enterRunAndLeave(gate, limits, running);
    }

    /** The figures a metrics gauge reads, at any moment, resize or not: never negative, never past any limit. */
    @Operation
    public void observe() {
        GateModelSteps.observe(gate, limits);
    }

    /** Only one resize at a time: a single operator changes the limits, as the actuator endpoint does. */
    @Operation(nonParallelGroup = "resize")
    public void resize(@Param(name = "maxConcurrent") int maxConcurrent, @Param(name = "maxQueued") int maxQueued) {
        limits.resize(gate, maxConcurrent, maxQueued);
    }

    @Validate
    public void everyPermitIsBackAndTheLastResizeIsInForce() {
        GateConfig config = gate.config();
        GateModelSteps.check(config.maxConcurrent() == limits.lastMaxConcurrent()
                        && config.maxQueued() == limits.lastMaxQueued(),
                "limits did not converge to the last resize: " + config);
        GateModelSteps.checkIdle(gate);
    }

    @Test
    @DisplayName("model checking: acquire, fair wait, release-once and non-blocking resize keep B and B+Q under all explored interleavings")
    void modelCheck() {
        GateModelSteps.modelCheck(AdmissionGateModelCheckTest.class, 1);
    }
}
