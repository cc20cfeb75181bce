package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.testing.Await;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The order of waiting work in a gate with rules: criticality first, then (when asked for) the operations of requests
 * in progress, within a bound; a newcomer that comes before the last waiter takes its place when every place is taken.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class SchedulerOrderTests {

    private static final OperationClass CRITICAL = OperationClass.of(Criticality.CRITICAL);
    private static final OperationClass DEFAULT = OperationClass.of(Criticality.DEFAULT);
    private static final OperationClass SHEDDABLE = OperationClass.of(Criticality.SHEDDABLE);

    private final CallersInTurn turns = new CallersInTurn();
    private AdmissionGate gate;

    @AfterEach
    void everyPlaceIsBack() throws InterruptedException {
        turns.leaveAll();
        GateModelSteps.checkIdle(gate);
    }

    @Test
    void criticalWorkThatArrivesLastRunsFirstAndSheddableWorkLast() throws Exception {
        gate = gate(1, 8, AdmissionRules.builder().criticalReserve(0.1).build());
        turns.run(gate, "first", DEFAULT);
        turns.queue(gate, "sheddable", SHEDDABLE);
        turns.queue(gate, "default", DEFAULT);
        turns.queue(gate, "critical", CRITICAL);

        turns.serveOneByOne(3);

        assertThat(turns.served()).containsExactly("first", "critical", "default", "sheddable");
    }

    @Test
    void aCriticalNewcomerTakesThePlaceOfTheLastSheddableWaiterWhenEveryPlaceIsTaken() throws Exception {
        gate = gate(1, 2, AdmissionRules.builder().criticalReserve(0.1).build());
        turns.run(gate, "first", DEFAULT);
        turns.queue(gate, "sheddable-0", SHEDDABLE);
        turns.queue(gate, "sheddable-1", SHEDDABLE);

        turns.start(gate, "critical", CRITICAL);

        assertThat(turns.caller("sheddable-1").outcome()).as("the last of the order gives its place: a push-out")
                .isEqualTo(RejectionReason.PUSHED_OUT.name());
        Await.until("the critical operation queued", () -> gate.queueLength() == 2);
        assertThat(gate.availableAdmissionPermits()).as("B + Q exactly").isZero();
        assertThat(refusal(SHEDDABLE)).as("a sheddable newcomer comes after every waiter")
                .isEqualTo(RejectionReason.ADMISSION_FULL);
        turns.serveOneByOne(2);
        assertThat(turns.served()).containsExactly("first", "critical", "sheddable-0");
    }

    @Test
    void aRequestInProgressGoesBeforeNewRequestsButNoMoreThanThreeTimesInARow() throws Exception {
        gate = gate(1, 16, AdmissionRules.builder().inProgressFirst(true).build());
        turns.run(gate, "first", DEFAULT);
        turns.queue(gate, "new-0", DEFAULT);
        turns.queue(gate, "new-1", DEFAULT);
        for (int i = 0; i < 5; i++) {
            turns.queueInProgress(gate, "in-progress-" + i, DEFAULT);
        }

        turns.serveOneByOne(7);

        assertThat(turns.served()).containsExactly("first", "in-progress-0", "in-progress-1", "in-progress-2", "new-0",
                "in-progress-3", "in-progress-4", "new-1");
    }

    @Test
    void aCriticalRequestInProgressTakesTheLastNewCriticalRequestsPlaceWhichIsPushedOut()
            throws Exception {
        gate = gate(1, 1, AdmissionRules.builder().inProgressFirst(true).build());
        turns.run(gate, "first", DEFAULT);
        turns.queue(gate, "new", CRITICAL);

        turns.startInProgress(gate, "in-progress", CRITICAL);

        assertThat(turns.caller("new").outcome()).as("a push-out, told apart from a refusal on arrival")
                .isEqualTo(RejectionReason.PUSHED_OUT.name());
        Await.until("in-progress queued", () -> gate.queueLength() == 1);
        turns.serveOneByOne(1);
        assertThat(turns.served()).containsExactly("first", "in-progress");
    }

    @Test
    void withoutTheRuleARequestInProgressWaitsInTurn() throws Exception {
        gate = gate(1, 4, AdmissionRules.builder().criticalReserve(0.1).build());
        turns.run(gate, "first", DEFAULT);
        turns.queue(gate, "new-0", DEFAULT);
        turns.startInProgress(gate, "in-progress", DEFAULT);
        Await.until("in-progress queued", () -> gate.queueLength() == 2);

        turns.serveOneByOne(2);

        assertThat(turns.served()).containsExactly("first", "new-0", "in-progress");
    }

    @Test
    void anOperationQueuedBeforeTheShutdownStillRunsAndTheGateDrains() throws Exception {
        gate = gate(1, 2, AdmissionRules.builder().criticalReserve(0.1).build());
        turns.run(gate, "first", DEFAULT);
        turns.queue(gate, "waiting", DEFAULT);
        turns.awaitParked("waiting");

        gate.shutDown();
        assertThat(refusal(CRITICAL)).isEqualTo(RejectionReason.SHUTTING_DOWN);
        turns.serveOneByOne(1);

        assertThat(turns.served()).as("admitted before the shutdown: it still runs").containsExactly("first", "waiting");
        turns.caller("waiting").leave();
        assertThat(gate.awaitDrained(Duration.ofMinutes(1))).isTrue();
    }

    private static AdmissionGate gate(int maxConcurrent, int maxQueued, AdmissionRules rules) {
        return new AdmissionGate("checkout", GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(maxQueued)
                .queueWait(Duration.ofMinutes(1)).admissionRules(rules).build());
    }

    private RejectionReason refusal(OperationClass as) {
        try (OperationClass.Scope bound = as.bind(); Permit permit = gate.acquire()) {
            throw new AssertionError("admitted as " + permit);
        } catch (BulkheadRejectedException refused) {
            return refused.reason();
        }
    }
}
