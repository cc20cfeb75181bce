package dev.dbbulkhead.gate;

import java.time.Duration;

import dev.dbbulkhead.BulkheadRejectedException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jspecify.annotations.Nullable;

/**
 * The steps the Lincheck models of a gate share, whoever resizes it (an operator, an adaptive limit): each checks
 * the invariants against the ghost of the resizes and ends with nothing held (Lincheck reuses its threads).
 */
public final class GateModelSteps {

    /** The first rule an operation broke in the model check under way; null while none was. */
    private static final AtomicReference<@Nullable String> FIRST_VIOLATION = new AtomicReference<>();

    private GateModelSteps() {
    }

    /**
     * Admits (waiting in the fair queue if need be), checks the limits while running — {@code running} counts the
     * operations inside — and releases twice: the second close must do nothing.
     */
    public static void enterRunAndLeave(AdmissionGate gate, LimitHistory limits, AtomicInteger running) {
        int startGeneration = limits.currentGeneration();
        Permit permit;
        try {
            permit = gate.acquire();
        } catch (BulkheadRejectedException rejected) {
            return;
        }
        int runningNow = running.incrementAndGet();
        int concurrentLimit = limits.mostConcurrentSince(startGeneration);
        check(runningNow <= concurrentLimit, "running " + runningNow + " > B " + concurrentLimit);
        limits.checkGateFigures(gate, startGeneration);
        running.decrementAndGet();
        permit.close();
        permit.close();
        check(permit.isReleased(), "permit not released after close");
    }

    /**
     * Runs {@code work} while {@code permit} is held, then closes it twice — the second close must do nothing — and
     * checks that it is released, whichever way the work ended.
     */
    public static void runThenCloseTwice(Permit permit, Runnable work) {
        try {
            work.run();
        } finally {
            permit.close();
            permit.close();
        }
        check(permit.isReleased(), "permit not released after close");
    }

    /** The figures a metrics gauge reads, at any moment, resize or not: never negative, never past any limit. */
    public static void observe(AdmissionGate gate, LimitHistory limits) {
        int active = gate.active();
        int waiting = gate.waiting();
        check(active >= 0 && active <= limits.mostConcurrentSince(0), "active() = " + active + " under " + gate.config());
        check(waiting >= 0 && waiting <= limits.mostAdmittedSince(0), "waiting() = " + waiting + " under " + gate.config());
    }

    /**
     * After a run: the limits of the last resize {@code limits} recorded are in force, with the queue discipline the
     * gate was built with, and the gate is idle ({@link #checkIdle}).
     */
    public static void checkLastResizeInForceAndIdle(AdmissionGate gate, LimitHistory limits, QueueDiscipline built) {
        GateConfig config = gate.config();
        check(config.maxConcurrent() == limits.lastMaxConcurrent() && config.maxQueued() == limits.lastMaxQueued()
                        && config.queueDiscipline() == built,
                "limits did not converge to the last resize: " + config);
        checkIdle(gate);
    }

    /** {@link #checkIdle}, and a gate that shut down drained: its drain missed no operation admitted meanwhile. */
    public static void checkIdleAndDrainedIfShutDown(AdmissionGate gate) throws InterruptedException {
        checkIdle(gate);
        if (gate.isShuttingDown()) {
            check(gate.awaitDrained(Duration.ZERO) && gate.isDrained(), "shut down but not drained: " + gate);
        }
    }

    /** After a run: every execution and admission permit is back, and nothing is inside or parked. */
    public static void checkIdle(AdmissionGate gate) {
        checkNoRuleBroken();
        GateConfig config = gate.config();
        check(gate.availableExecutionPermits() == config.maxConcurrent(),
                "execution permits " + gate.availableExecutionPermits() + " of " + config.maxConcurrent());
        check(gate.availableAdmissionPermits() == config.maxAdmitted(),
                "admission permits " + gate.availableAdmissionPermits() + " of " + config.maxAdmitted());
        check(gate.active() == 0 && gate.waiting() == 0 && gate.queueLength() == 0, "gate not idle: " + gate);
    }

    /**
     * Model-checks {@code model}: 3 threads × 2 operations, in 10 random scenarios × 1,000 interleavings unless
     * {@code -Dmodelcheck.iterations} and {@code -Dmodelcheck.invocations} say otherwise.
     *
     * @param actorsBefore operations run before the threads start
     * @param actorsAfter  operations run after the threads ended
     */
    public static void modelCheck(Class<?> model, int actorsBefore, int actorsAfter) {
        FIRST_VIOLATION.set(null);
        new ModelCheckingOptions()
                .iterations(Integer.getInteger("modelcheck.iterations", 10))
                .invocationsPerIteration(Integer.getInteger("modelcheck.invocations", 1_000))
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(actorsBefore)
                .actorsAfter(actorsAfter)
                .check(model);
    }

    /**
     * Throws {@link AssertionError} with {@code violation} unless {@code invariant} holds, and keeps the first
     * violation of the model check for {@link #checkNoRuleBroken()}: Lincheck takes what an operation throws for its
     * result, so a rule broken alike in every interleaving (a permit not released after close, say) would otherwise
     * pass as linearizable.
     */
    public static void check(boolean invariant, String violation) {
        if (!invariant) {
            FIRST_VIOLATION.compareAndSet(null, violation);
            throw new AssertionError(violation);
        }
    }

    /** After a run: no operation of the model check so far broke a rule, whatever Lincheck made of its throw. */
    public static void checkNoRuleBroken() {
        String violation = FIRST_VIOLATION.get();
        if (violation != null) {
            throw new AssertionError("an operation broke a rule: " + violation);
        }
    }
}
