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
 * Lincheck model checking of a graceful shutdown with units of work in flight: requests of two operations each, a
 * request of one, and the shutdown, under every interleaving the model checker explores.
 *
 * <p>What is checked:
 * <ul>
 *   <li>a later operation of a request admitted once is never refused for the shutdown, whenever it comes;</li>
 *   <li>a request whose first operation comes after the shutdown began is refused for it;</li>
 *   <li>B holds, every permit is released once, and the gate ends shut down, drained and idle: the drain's count of
 *       what is inside never misses an operation admitted while it shuts down;</li>
 *   <li>no blocking for ever (Lincheck reports a thread that never finishes).</li>
 * </ul>
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES) // only against a hang of the harness; Lincheck reports a blocked model thread itself
public class AdmissionGateShutdownModelCheckTests {

    /** Long enough never to expire in a model run. */
    private static final Duration QUEUE_WAIT = Duration.ofHours(1);
    private static final int MAX_CONCURRENT = 1;

    private final AdmissionGate gate = new AdmissionGate("model", GateConfig.builder()
            .maxConcurrent(MAX_CONCURRENT)
            .maxQueued(2)
            .queueWait(QUEUE_WAIT)
            .build());
    private final AtomicInteger running = new AtomicInteger();
    /** Set once the gate shuts down: a first operation asked after it must be refused. */
    private volatile boolean shutDownBegun;

    /** A request of two operations: once its first was admitted, its second is never refused for the shutdown. */
    @Operation
    public void requestOfTwoOperations() {
        try (RequestCommits.Scope request = RequestCommits.track()) {
            if (!runOperation(shutDownBegun)) {
                return;
            }
            try {
                Permit later = gate.acquire();
                runAndClose(later);
            } catch (BulkheadRejectedException refused) {
                check(refused.reason() != RejectionReason.SHUTTING_DOWN,
                        "a later operation of a request in progress was refused for the shutdown");
            }
        }
    }

    /** A request of one operation. */
    @Operation
    public void requestOfOneOperation() {
        try (RequestCommits.Scope request = RequestCommits.track()) {
            runOperation(shutDownBegun);
        }
    }

    @Operation(nonParallelGroup = "shutdown")
    public void shutDown() {
        gate.shutDown();
        // Set once the gate's own flag is: a first operation that reads it true must find the gate shutting down.
        shutDownBegun = true;
    }

    /**
     * Runs a request's first operation; returns whether it was admitted. Asked after the shutdown began, it must be
     * refused for it.
     */
    private boolean runOperation(boolean askedAfterShutdown) {
        Permit permit;
        try {
            permit = gate.acquire();
        } catch (BulkheadRejectedException refused) {
            return false;
        }
        check(!askedAfterShutdown, "a request not admitted before was admitted after the shutdown began");
        runAndClose(permit);
        return true;
    }

    private void runAndClose(Permit permit) {
        int runningNow = running.incrementAndGet();
        check(runningNow <= MAX_CONCURRENT, "running " + runningNow + " > B " + MAX_CONCURRENT);
        running.decrementAndGet();
        permit.recordOutcome(ExecutionOutcome.COMMITTED);
        GateModelSteps.runThenCloseTwice(permit, () -> { });
    }

    @Validate
    public void everyPermitIsBackAndAShutDownGateIsDrained() throws InterruptedException {
        GateModelSteps.checkIdleAndDrainedIfShutDown(gate);
    }

    @Test
    @DisplayName("model checking: a shutdown refuses new requests, lets the requests in progress finish, and drains, under all explored interleavings")
    void modelCheck() {
        GateModelSteps.modelCheck(AdmissionGateShutdownModelCheckTests.class, 0, 0);
    }
}
