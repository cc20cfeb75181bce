package dev.dbbulkhead.gate;

import static dev.dbbulkhead.gate.GateModelSteps.check;

import dev.dbbulkhead.BulkheadRejectedException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of the order in which the gate serves its waiters: first come, first served, and no
 * newcomer overtakes a waiter — under every interleaving the model checker explores.
 *
 * <p>With B = 1 the operations run one at a time, so the order in which they take their turn number, inside the
 * permit, is the order in which they were served. An operation that, before it asks, reads that {@code s} operations
 * have been served and that {@code p} waiters are parked in the queue, must be served after all of them: its turn is
 * past {@code s + p}. (A parked waiter has not yet taken its turn when it is counted: it takes it only once
 * {@code acquire()} returned, after it left the queue. Nobody gives up waiting here: the queue wait never ends in a
 * model run, and nothing is interrupted.)
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES) // only against a hang of the harness; Lincheck reports a blocked model thread itself
public class AdmissionGateFifoModelCheckTests {

    private final AdmissionGate gate = new AdmissionGate("fifo", GateConfig.builder()
            .maxConcurrent(1)
            .maxQueued(2)
            .queueWait(Duration.ofHours(1))
            .build());
    private final AtomicInteger served = new AtomicInteger();

    /** Asks, perhaps waits, takes its turn while running, and leaves. */
    @Operation
    public void enterRunAndLeave() {
        int servedBefore = served.get();
        int parkedBefore = gate.queueLength();
        Permit permit;
        try {
            permit = gate.acquire();
        } catch (BulkheadRejectedException rejected) {
            return;
        }
        try {
            int turn = served.incrementAndGet();
            check(turn > servedBefore + parkedBefore, "served as number " + turn + ", though " + parkedBefore
                    + " waiters were parked when it asked, after " + servedBefore + " had been served");
        } finally {
            permit.close();
        }
    }

    @Validate
    public void everyPermitIsBack() {
        GateModelSteps.checkNoRuleBroken();
        check(gate.active() == 0 && gate.waiting() == 0 && gate.queueLength() == 0, "gate not idle: " + gate);
    }

    @Test
    @DisplayName("model checking: waiters are served in arrival order, and no newcomer overtakes a parked waiter")
    void modelCheck() {
        GateModelSteps.modelCheck(AdmissionGateFifoModelCheckTests.class, 0, 0);
    }
}
