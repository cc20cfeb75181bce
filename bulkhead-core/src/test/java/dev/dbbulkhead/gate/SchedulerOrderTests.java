package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.testing.Await;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
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

    private final List<String> served = new CopyOnWriteArrayList<>();
    private final Map<String, QueuedCaller> callers = new LinkedHashMap<>();
    private AdmissionGate gate;

    @AfterEach
    void everyPlaceIsBack() throws InterruptedException {
        for (QueuedCaller caller : callers.values()) {
            caller.leave();
        }
        GateModelSteps.checkIdle(gate);
    }

    @Test
    void criticalWorkThatArrivesLastRunsFirstAndSheddableWorkLast() throws Exception {
        gate = gate(1, 8, AdmissionRules.builder().criticalReserve(0.1).build());
        run("first", DEFAULT);
        queue("sheddable", SHEDDABLE);
        queue("default", DEFAULT);
        queue("critical", CRITICAL);

        serveOneByOne(3);

        assertThat(served).containsExactly("first", "critical", "default", "sheddable");
    }

    @Test
    void aCriticalNewcomerTakesThePlaceOfTheLastSheddableWaiterWhenEveryPlaceIsTaken() throws Exception {
        gate = gate(1, 2, AdmissionRules.builder().criticalReserve(0.1).build());
        run("first", DEFAULT);
        queue("sheddable-0", SHEDDABLE);
        queue("sheddable-1", SHEDDABLE);

        callers.put("critical", QueuedCaller.startAs("critical", gate, CRITICAL, served));

        assertThat(callers.get("sheddable-1").outcome()).as("the last of the order gives its place")
                .isEqualTo(RejectionReason.SHED_BY_CRITICALITY.name());
        Await.until("the critical operation queued", () -> gate.queueLength() == 2);
        assertThat(gate.availableAdmissionPermits()).as("B + Q exactly").isZero();
        assertThat(refusal(SHEDDABLE)).as("a sheddable newcomer comes after every waiter")
                .isEqualTo(RejectionReason.ADMISSION_FULL);
        serveOneByOne(2);
        assertThat(served).containsExactly("first", "critical", "sheddable-0");
    }

    @Test
    void aRequestInProgressGoesBeforeNewRequestsButNoMoreThanThreeTimesInARow() throws Exception {
        gate = gate(1, 16, AdmissionRules.builder().inProgressFirst(true).build());
        run("first", DEFAULT);
        queue("new-0", DEFAULT);
        queue("new-1", DEFAULT);
        for (int i = 0; i < 5; i++) {
            String name = "in-progress-" + i;
            int queuedBefore = gate.queueLength();
            callers.put(name, QueuedCaller.startInProgress(name, gate, DEFAULT, served));
            Await.until(name + " queued", () -> gate.queueLength() == queuedBefore + 1);
        }

        serveOneByOne(7);

        assertThat(served).containsExactly("first", "in-progress-0", "in-progress-1", "in-progress-2", "new-0",
                "in-progress-3", "in-progress-4", "new-1");
    }

    @Test
    void aCriticalRequestInProgressTakesTheLastNewCriticalRequestsPlaceWhichIsRefusedAsIfTheGateWereFull()
            throws Exception {
        gate = gate(1, 1, AdmissionRules.builder().inProgressFirst(true).build());
        run("first", DEFAULT);
        queue("new", CRITICAL);

        callers.put("in-progress", QueuedCaller.startInProgress("in-progress", gate, CRITICAL, served));

        assertThat(callers.get("new").outcome()).as("never shed for criticality: it is as critical")
                .isEqualTo(RejectionReason.ADMISSION_FULL.name());
        Await.until("in-progress queued", () -> gate.queueLength() == 1);
        serveOneByOne(1);
        assertThat(served).containsExactly("first", "in-progress");
    }

    @Test
    void withoutTheRuleARequestInProgressWaitsInTurn() throws Exception {
        gate = gate(1, 4, AdmissionRules.builder().criticalReserve(0.1).build());
        run("first", DEFAULT);
        queue("new-0", DEFAULT);
        callers.put("in-progress", QueuedCaller.startInProgress("in-progress", gate, DEFAULT, served));
        Await.until("in-progress queued", () -> gate.queueLength() == 2);

        serveOneByOne(2);

        assertThat(served).containsExactly("first", "new-0", "in-progress");
    }

    @Test
    void anOperationQueuedBeforeTheShutdownStillRunsAndTheGateDrains() throws Exception {
        gate = gate(1, 2, AdmissionRules.builder().criticalReserve(0.1).build());
        run("first", DEFAULT);
        queue("waiting", DEFAULT);

        gate.shutDown();
        assertThat(refusal(CRITICAL)).isEqualTo(RejectionReason.SHUTTING_DOWN);
        serveOneByOne(1);

        assertThat(served).as("admitted before the shutdown: it still runs").containsExactly("first", "waiting");
        callers.get("waiting").leave();
        assertThat(gate.awaitDrained(Duration.ofMinutes(1))).isTrue();
    }

    private static AdmissionGate gate(int maxConcurrent, int maxQueued, AdmissionRules rules) {
        return new AdmissionGate("checkout", GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(maxQueued)
                .queueWait(Duration.ofMinutes(1)).admissionRules(rules).build());
    }

    private void run(String name, OperationClass as) throws Exception {
        QueuedCaller caller = QueuedCaller.startAs(name, gate, as, served);
        callers.put(name, caller);
        assertThat(caller.outcome()).isEqualTo("admitted");
    }

    private void queue(String name, OperationClass as) {
        int queuedBefore = gate.queueLength();
        callers.put(name, QueuedCaller.startAs(name, gate, as, served));
        Await.until(name + " queued", () -> gate.queueLength() == queuedBefore + 1);
    }

    /** Lets the last served caller leave, {@code count} times, each time waiting for the next served. */
    private void serveOneByOne(int count) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            int before = served.size();
            callers.get(served.get(before - 1)).leave();
            Await.until("the next served", () -> served.size() == before + 1);
        }
    }

    private RejectionReason refusal(OperationClass as) {
        try (OperationClass.Scope bound = as.bind(); Permit permit = gate.acquire()) {
            throw new AssertionError("admitted as " + permit);
        } catch (BulkheadRejectedException refused) {
            return refused.reason();
        }
    }
}
