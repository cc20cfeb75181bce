package dev.dbbulkhead.gate;

import static dev.dbbulkhead.gate.GateModelSteps.check;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of admission where connections are taken, as the pool-level admission uses the gate: a
 * workload that waits when full (a waiting room no arrival fills), in-progress-first on as it is by default there,
 * units of work of two borrows each, a borrow nested in a held one, and a graceful shutdown, under every interleaving
 * the model checker explores.
 *
 * <p>What is checked:
 * <ul>
 *   <li>a workload that waits when full refuses no borrow for being full: only for the shutdown, and only the first
 *       borrow of a unit not admitted before;</li>
 *   <li>a thread holds a borrow place exactly while its permit is open, so that its nested borrow takes no second
 *       place (no hold-and-wait), and holds none once it is closed;</li>
 *   <li>B holds, every permit is released once, and the gate ends idle, and drained once shut down;</li>
 *   <li>no blocking for ever (Lincheck reports a thread that never finishes).</li>
 * </ul>
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES) // only against a hang of the harness; Lincheck reports a blocked model thread itself
public class AdmissionGateAtBorrowModelCheckTests {

    /** Long enough never to expire in a model run. */
    private static final Duration QUEUE_WAIT = Duration.ofHours(1);
    private static final int MAX_CONCURRENT = 1;

    private final AdmissionGate gate = new AdmissionGate("jobs", GateConfig.builder()
            .maxConcurrent(MAX_CONCURRENT)
            .maxQueued(Integer.MAX_VALUE / 2)
            .queueWait(QUEUE_WAIT)
            .admissionRules(AdmissionRules.builder().inProgressFirst(true).build())
            .build());
    private final AtomicInteger running = new AtomicInteger();
    private volatile boolean shutDownBegun;

    /** A unit of two borrows, the first with a borrow nested in it. */
    @Operation
    public void unitOfTwoBorrowsTheFirstWithANestedOne() {
        try (RequestCommits.Scope unit = RequestCommits.track()) {
            Permit first;
            try {
                first = gate.acquireAtBorrow();
            } catch (BulkheadRejectedException refused) {
                checkRefusedOnlyForTheShutdown(refused, "the first borrow of a unit");
                return;
            }
            try {
                check(AdmissionGate.currentThreadHoldsBorrowPlace(),
                        "a thread holding a borrow place does not know it: its nested borrow would take a second");
                run();
            } finally {
                first.recordOutcome(ExecutionOutcome.COMMITTED);
                GateModelSteps.runThenCloseTwice(first, () -> { });
            }
            check(!AdmissionGate.currentThreadHoldsBorrowPlace(), "a borrow place is held after its permit closed");
            try {
                Permit later = gate.acquireAtBorrow();
                GateModelSteps.runThenCloseTwice(later, this::run);
            } catch (BulkheadRejectedException refused) {
                throw new AssertionError("a later borrow of a unit admitted once was refused: " + refused.reason(),
                        refused);
            }
        }
    }

    /** A unit of one borrow. */
    @Operation
    public void unitOfOneBorrow() {
        boolean askedAfterShutdown = shutDownBegun;
        try (RequestCommits.Scope unit = RequestCommits.track()) {
            Permit permit = gate.acquireAtBorrow();
            check(!askedAfterShutdown, "a unit not admitted before was admitted after the shutdown began");
            GateModelSteps.runThenCloseTwice(permit, this::run);
        } catch (BulkheadRejectedException refused) {
            checkRefusedOnlyForTheShutdown(refused, "a unit's only borrow");
        }
    }

    @Operation(nonParallelGroup = "shutdown")
    public void shutDown() {
        gate.shutDown();
        shutDownBegun = true;
    }

    private void checkRefusedOnlyForTheShutdown(BulkheadRejectedException refused, String what) {
        check(refused.reason() == RejectionReason.SHUTTING_DOWN,
                what + " was refused " + refused.reason() + " by a workload that waits when full");
    }

    private void run() {
        int runningNow = running.incrementAndGet();
        check(runningNow <= MAX_CONCURRENT, "running " + runningNow + " > B " + MAX_CONCURRENT);
        running.decrementAndGet();
    }

    @Validate
    public void everyPermitIsBackAndAShutDownGateIsDrained() throws InterruptedException {
        GateModelSteps.checkIdleAndDrainedIfShutDown(gate);
    }

    @Test
    @DisplayName("model checking: a waiting workload admitted at the borrow refuses nothing for being full, knows its held places, lets units in progress finish through a shutdown, and drains, under all explored interleavings")
    void modelCheck() {
        GateModelSteps.modelCheck(AdmissionGateAtBorrowModelCheckTests.class, 0, 0);
    }
}
