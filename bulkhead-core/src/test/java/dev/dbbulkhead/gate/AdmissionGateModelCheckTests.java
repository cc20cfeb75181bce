package dev.dbbulkhead.gate;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of the gate: operations of three threads run under every interleaving the model checker
 * explores (bounded by the scenario counts below), with the invariants checked inside the operations and after them.
 *
 * <p>What is checked:
 * <ul>
 *   <li>B and B + Q: an operation, once admitted, and every observation hold the gate's counts to the largest limits
 *       in force since the oldest operation inside asked to be admitted ({@link LimitHistory}, a ghost of the
 *       resizes, and the start generations of the operations inside);</li>
 *   <li>the current limits: {@link #currentLimits()} returns a value, so Lincheck checks each run against a sequential
 *       execution of the same operations — a resize must be seen by every later read, and no read may see a limit
 *       no resize set;</li>
 *   <li>release-once and no leak: every permit is back and the last resize in force at the end;</li>
 *   <li>no blocking for ever (Lincheck reports a thread that never finishes).</li>
 * </ul>
 * The order in which waiters are served is checked by {@link AdmissionGateFifoModelCheckTests}, where B stays 1.
 */
@Param(name = "maxConcurrent", gen = IntGen.class, conf = "1:2")
@Param(name = "maxQueued", gen = IntGen.class, conf = "0:1")
@Timeout(value = 15, unit = TimeUnit.MINUTES) // only against a hang of the harness; Lincheck reports a blocked model thread itself
public class AdmissionGateModelCheckTests {

    /** Long enough never to expire in a model run: an admitted waiter is always handed a permit eventually. */
    private static final Duration QUEUE_WAIT = Duration.ofHours(1);
    private static final int INITIAL_MAX_CONCURRENT = 1;
    private static final int INITIAL_MAX_QUEUED = 1;
    /** More than the generations of any scenario below: two per resize, at most one resize per operation. */
    private static final int MAX_GENERATIONS = 64;

    private final AdmissionGate gate = new AdmissionGate("model", GateConfig.builder()
            .maxConcurrent(INITIAL_MAX_CONCURRENT)
            .maxQueued(INITIAL_MAX_QUEUED)
            .queueWait(QUEUE_WAIT)
            .build());
    private final LimitHistory limits = new LimitHistory(INITIAL_MAX_CONCURRENT, INITIAL_MAX_QUEUED);
    private final AtomicInteger running = new AtomicInteger();
    /** How many operations inside (asking, waiting, running or leaving) started in each generation. */
    private final AtomicIntegerArray insideByStartGeneration = new AtomicIntegerArray(MAX_GENERATIONS);

    /** Admits (waiting in the fair queue if need be), checks the limits while running, releases twice. */
    @Operation
    public void enterRunAndLeave() {
        int startGeneration = limits.currentGeneration();
        insideByStartGeneration.incrementAndGet(startGeneration);
        try {
            GateModelSteps.enterRunAndLeave(gate, limits, running);
        } finally {
            insideByStartGeneration.decrementAndGet(startGeneration);
        }
    }

    /**
     * The figures a metrics gauge reads, at any moment, resize or not: never negative, and never past the limits
     * in force since the oldest operation inside asked to be admitted.
     */
    @Operation
    public void observe() {
        int since = oldestStartGenerationInside();
        int active = gate.active();
        int waiting = gate.waiting();
        int concurrentLimit = limits.mostConcurrentSince(since);
        int admittedLimit = limits.mostAdmittedSince(since);
        GateModelSteps.check(active >= 0 && active <= concurrentLimit, "active() = " + active + ", B " + concurrentLimit);
        GateModelSteps.check(waiting >= 0 && waiting <= admittedLimit, "waiting() = " + waiting + ", B+Q " + admittedLimit);
        limits.checkGateFigures(gate, since);
    }

    /** The generation any operation inside now may have been admitted under, at the oldest. */
    private int oldestStartGenerationInside() {
        int current = limits.currentGeneration();
        for (int generation = 0; generation < current; generation++) {
            if (insideByStartGeneration.get(generation) > 0) {
                return generation;
            }
        }
        return current;
    }

    /** The limits now in force, as a value for Lincheck's sequential check. */
    @Operation
    public String currentLimits() {
        GateConfig config = gate.config();
        return "B=" + config.maxConcurrent() + " Q=" + config.maxQueued();
    }

    /** Only one resize at a time: a single operator changes the limits, as the actuator endpoint does. */
    @Operation(nonParallelGroup = "resize")
    public void resize(@Param(name = "maxConcurrent") int maxConcurrent, @Param(name = "maxQueued") int maxQueued) {
        limits.resize(gate, maxConcurrent, maxQueued);
    }

    @Validate
    public void everyPermitIsBackAndTheLastResizeIsInForce() {
        GateModelSteps.checkLastResizeInForceAndIdle(gate, limits, QueueDiscipline.FIFO);
    }

    @Test
    @DisplayName("model checking: acquire, release-once and non-blocking resize keep B and B+Q, and reads see the current limits, under all explored interleavings")
    void modelCheck() {
        GateModelSteps.modelCheck(AdmissionGateModelCheckTests.class, 1, 1);
    }
}
