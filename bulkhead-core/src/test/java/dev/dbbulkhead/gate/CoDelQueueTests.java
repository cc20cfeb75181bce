package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CoDel queue discipline of the gate, driven by a {@link ManualClock} (target 5 ms, interval 100 ms): every
 * interval ends when the test moves the clock, and every waiter is served when the test lets a permit go. No
 * assertion depends on how long anything took.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class CoDelQueueTests {

    private static final Duration FOREVER = Duration.ofHours(1);

    private final ManualClock clock = new ManualClock();
    private final List<String> served = new CopyOnWriteArrayList<>();
    private final List<String> heard = new CopyOnWriteArrayList<>();
    private final GateListener recording = new GateListener() {
        @Override
        public void onShed(String workload, long queueWaitNanos) {
            heard.add("shed " + Thread.currentThread().getName());
        }

        @Override
        public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
            heard.add("rejected " + reason + " " + Thread.currentThread().getName());
        }
    };

    private AdmissionGate gate(int maxConcurrent, int maxQueued, Duration queueWait) {
        return new AdmissionGate("orders", GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(maxQueued)
                .queueWait(queueWait).queueDiscipline(QueueDiscipline.CODEL)
                .queueTargetDelay(Duration.ofMillis(5)).queueInterval(Duration.ofMillis(100)).build(),
                recording, clock);
    }

    private QueuedCaller admitted(String name, AdmissionGate gate) throws Exception {
        QueuedCaller caller = QueuedCaller.start(name, gate, served);
        assertThat(caller.outcome()).as(name).isEqualTo("admitted");
        return caller;
    }

    private QueuedCaller queued(String name, AdmissionGate gate) {
        int before = gate.queueLength();
        QueuedCaller caller = QueuedCaller.start(name, gate, served);
        Await.until(name + " queued", () -> gate.queueLength() == before + 1);
        return caller;
    }

    /** {@code leaving} lets its permit go; {@code next} is then admitted. */
    private static void handOver(QueuedCaller leaving, QueuedCaller next) throws Exception {
        leaving.leave();
        assertThat(next.outcome()).as(next + " after " + leaving + " left").isEqualTo("admitted");
    }

    private static void assertIdle(AdmissionGate gate) {
        GateModelSteps.checkIdle(gate);
    }

    @Test
    void whileNoQueueStandsWaitersAreServedInArrivalOrder() throws Exception {
        AdmissionGate gate = gate(1, 3, FOREVER);
        QueuedCaller first = admitted("first", gate);
        QueuedCaller w1 = queued("w1", gate);
        QueuedCaller w2 = queued("w2", gate);
        QueuedCaller w3 = queued("w3", gate);

        handOver(first, w1);
        handOver(w1, w2);
        handOver(w2, w3);
        w3.leave();

        assertThat(served).containsExactly("first", "w1", "w2", "w3");
        assertThat(gate.queueStanding()).isFalse();
        assertIdle(gate);
    }

    /**
     * From t = 0 to 100 ms the queue began empty: not standing. From 100 to 200 ms it never emptied, and the oldest
     * waiter had waited 100 ms when one was served: standing from 200 ms on. Returns the caller running then, with
     * {@code young0} queued at 198 ms and {@code young1..3} at 200 ms; {@code old2}, queued at 0, is shed.
     */
    private StandingScene standingScene(AdmissionGate gate) throws Exception {
        QueuedCaller first = admitted("first", gate);
        QueuedCaller old1 = queued("old1", gate);
        QueuedCaller old2 = queued("old2", gate);
        clock.set(Duration.ofMillis(100));
        handOver(first, old1);
        assertThat(gate.queueStanding()).as("after an interval that began empty").isFalse();
        clock.set(Duration.ofMillis(198));
        QueuedCaller young0 = queued("young0", gate);

        clock.set(Duration.ofMillis(200));
        QueuedCaller young1 = QueuedCaller.start("young1", gate, served);
        assertThat(old2.outcome()).as("old2, queued for 200 ms").isEqualTo("QUEUE_TIMEOUT");
        Await.until("young1 queued", () -> gate.queueLength() == 2);
        assertThat(gate.queueStanding()).as("after an interval whose every wait exceeded the target").isTrue();
        return new StandingScene(old1, young0, young1, queued("young2", gate), queued("young3", gate));
    }

    private record StandingScene(QueuedCaller running, QueuedCaller young0, QueuedCaller young1,
                                 QueuedCaller young2, QueuedCaller young3) {

        List<QueuedCaller> queued() {
            return List.of(young0, young1, young2, young3);
        }

        /** Lets the running caller and then each served one go, expecting the newest waiter served each time. */
        void serveNewestFirst() throws Exception {
            handOver(running, young3);
            handOver(young3, young2);
            handOver(young2, young1);
            handOver(young1, young0);
        }
    }

    @Test
    void withAdmissionRulesAStandingQueueStillShedsItsOverdueWaitersAndServesInTheRulesOrder() throws Exception {
        AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(1).maxQueued(6)
                .queueWait(FOREVER).queueDiscipline(QueueDiscipline.CODEL).queueTargetDelay(Duration.ofMillis(5))
                .queueInterval(Duration.ofMillis(100)).admissionRules(AdmissionRules.builder().criticalReserve(0.1)
                        .build()).build(), recording, clock);
        StandingScene scene = standingScene(gate);

        handOver(scene.running(), scene.young0());
        handOver(scene.young0(), scene.young1());
        handOver(scene.young1(), scene.young2());
        handOver(scene.young2(), scene.young3());
        scene.young3().leave();

        assertThat(served).as("one flow, one criticality: arrival order, standing or not")
                .containsExactly("first", "old1", "young0", "young1", "young2", "young3");
        assertThat(gate.shedCount()).isEqualTo(1);
        assertThat(heard).contains("shed old2");
        assertIdle(gate);
    }

    @Test
    void aQueueThatStoodForAWholeIntervalServesTheNewestFirst() throws Exception {
        AdmissionGate gate = gate(1, 6, FOREVER);
        StandingScene scene = standingScene(gate);

        scene.serveNewestFirst();
        scene.young0().leave();

        assertThat(served).containsExactly("first", "old1", "young3", "young2", "young1", "young0");
        assertIdle(gate);
    }

    @Test
    void aStandingQueueShedsWaitersPastTheTargetAndTheListenerHearsOfTheShedFirst() throws Exception {
        AdmissionGate gate = gate(1, 6, FOREVER);
        StandingScene scene = standingScene(gate);
        assertThat(gate.shedCount()).isEqualTo(1);

        clock.set(Duration.ofMillis(211));
        QueuedCaller late = QueuedCaller.start("late", gate, served);
        for (QueuedCaller young : scene.queued()) {
            assertThat(young.outcome()).as(young + ", waiting 11 ms or more").isEqualTo("QUEUE_TIMEOUT");
        }
        Await.until("late queued", () -> gate.queueLength() == 1);
        handOver(scene.running(), late);
        late.leave();

        assertThat(gate.shedCount()).isEqualTo(5);
        assertThat(heard).hasSize(10).containsSubsequence("shed old2", "rejected QUEUE_TIMEOUT old2");
        for (QueuedCaller young : scene.queued()) {
            assertThat(heard).containsSubsequence("shed " + young, "rejected QUEUE_TIMEOUT " + young);
        }
        assertIdle(gate);
    }

    @Test
    void aStandingQueueThatNeverEmptiesKeepsStandingThoughItsOldestWaitIsShortAndShedsItsOverdueWaiters()
            throws Exception {
        AdmissionGate gate = gate(1, 6, FOREVER);
        StandingScene scene = standingScene(gate);

        clock.set(Duration.ofMillis(201));
        handOver(scene.running(), scene.young3());
        clock.set(Duration.ofMillis(300));
        assertThat(gate.queueStanding()).as("the oldest waited 3 ms at the grant, but nobody left the queue empty")
                .isTrue();
        scene.young3().leave();

        for (QueuedCaller overdue : List.of(scene.young0(), scene.young1(), scene.young2())) {
            assertThat(overdue.outcome()).as(overdue + ", waiting 100 ms or more").isEqualTo("QUEUE_TIMEOUT");
        }
        assertThat(served).containsExactly("first", "old1", "young3");
        assertThat(gate.shedCount()).as("old2, young0, young1 and young2").isEqualTo(4);
        clock.set(Duration.ofMillis(400));
        assertThat(gate.queueStanding()).as("after an interval in which it emptied").isFalse();
        assertIdle(gate);
    }

    @Test
    void aStandingQueueReturnsToArrivalOrderAfterAnIntervalInWhichItEmptied() throws Exception {
        AdmissionGate gate = gate(1, 6, FOREVER);
        StandingScene scene = standingScene(gate);
        scene.serveNewestFirst();

        clock.set(Duration.ofMillis(300));
        assertThat(gate.queueStanding()).as("drained, with no event since").isFalse();
        QueuedCaller after1 = queued("after1", gate);
        QueuedCaller after2 = queued("after2", gate);

        assertThat(gate.queueStanding()).isFalse();
        handOver(scene.young0(), after1);
        handOver(after1, after2);
        after2.leave();
        assertThat(served).endsWith("after1", "after2");
        assertIdle(gate);
    }

    @Test
    void bPlusQStillBoundTheAdmissionsAndTheRestAreRefusedAtOnce() throws Exception {
        AdmissionGate gate = gate(1, 1, FOREVER);
        QueuedCaller first = admitted("first", gate);
        QueuedCaller waiter = queued("waiter", gate);

        BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class, gate::acquire);

        assertThat(refused.reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
        assertThat(gate.active()).isEqualTo(1);
        assertThat(gate.waiting()).isEqualTo(1);
        handOver(first, waiter);
        waiter.leave();
        assertIdle(gate);
    }

    @Test
    void theQueueWaitAndTheBudgetBoundEveryWaitAndAreNoShed() throws Exception {
        AdmissionGate gate = gate(1, 2, Duration.ofMillis(20));
        QueuedCaller first = admitted("first", gate);
        QueuedCaller byQueueWait = queued("byQueueWait", gate);
        QueuedCaller byBudget = QueuedCaller.startWithin("byBudget", gate, Duration.ofMillis(10), served);
        Await.until("byBudget queued", () -> gate.queueLength() == 2);

        clock.set(Duration.ofMillis(10));
        assertThat(byBudget.outcome()).isEqualTo("QUEUE_TIMEOUT");
        clock.set(Duration.ofMillis(20));
        assertThat(byQueueWait.outcome()).isEqualTo("QUEUE_TIMEOUT");

        assertThat(gate.shedCount()).isZero();
        assertThat(heard).containsExactlyInAnyOrder("rejected QUEUE_TIMEOUT byBudget",
                "rejected QUEUE_TIMEOUT byQueueWait");
        first.leave();
        assertIdle(gate);
    }

    @Test
    void anInterruptedWaiterIsRefusedWithItsFlagSetAndItsAdmissionGivenBack() throws Exception {
        AdmissionGate gate = gate(1, 1, FOREVER);
        QueuedCaller first = admitted("first", gate);
        QueuedCaller waiter = queued("waiter", gate);

        waiter.thread().interrupt();

        assertThat(waiter.outcome()).isEqualTo("INTERRUPTED interrupted");
        assertThat(gate.waiting()).isZero();
        assertThat(gate.queueLength()).isZero();
        assertThat(gate.availableAdmissionPermits()).isEqualTo(1);
        first.leave();
        assertIdle(gate);
    }

    @Test
    void growingHandsTheNewRoomToQueuedWaiters() throws Exception {
        AdmissionGate gate = gate(1, 2, FOREVER);
        QueuedCaller first = admitted("first", gate);
        QueuedCaller w1 = queued("w1", gate);
        QueuedCaller w2 = queued("w2", gate);

        gate.resize(3, 0);

        assertThat(w1.outcome()).isEqualTo("admitted");
        assertThat(w2.outcome()).isEqualTo("admitted");
        assertThat(gate.active()).isEqualTo(3);
        assertThat(gate.config().queueDiscipline()).as("kept by a resize").isEqualTo(QueueDiscipline.CODEL);
        first.leave();
        w1.leave();
        w2.leave();
        assertIdle(gate);
    }

    @Test
    void afterAShrinkAReleaseHandsNoSlotOnUntilFewerThanTheNewBRun() throws Exception {
        AdmissionGate gate = gate(2, 1, FOREVER);
        QueuedCaller first = admitted("first", gate);
        QueuedCaller second = admitted("second", gate);
        QueuedCaller waiter = queued("waiter", gate);

        gate.resize(1, 1);
        first.leave();

        assertThat(gate.active()).as("the released slot given back, not handed on").isEqualTo(1);
        assertThat(gate.queueLength()).isEqualTo(1);
        assertThat(waiter.decided()).isFalse();
        handOver(second, waiter);
        waiter.leave();
        assertIdle(gate);
    }

    @Test
    void aWaiterHandedAPermitAsItsWaitRanOutKeepsItAndTheCountsStayExact() throws Exception {
        AdmissionGate gate = gate(1, 1, Duration.ofMillis(50));
        QueuedCaller first = admitted("first", gate);
        QueuedCaller waiter = queued("waiter", gate);

        // The waiter's next look at the clock: the permit is handed to it, then its wait is seen to have run out.
        clock.onNextReadBy(waiter.thread(), () -> {
            leave(first);
            clock.set(Duration.ofMillis(50));
        });

        assertThat(waiter.outcome()).isEqualTo("admitted");
        assertThat(gate.active()).isEqualTo(1);
        assertThat(gate.waiting()).isZero();
        waiter.leave();
        assertIdle(gate);
    }

    @Test
    void aWaiterHandedAPermitAfterItsBudgetWasSpentGivesItBackAndTheCountsStayExact() throws Exception {
        AdmissionGate gate = gate(1, 1, FOREVER);
        QueuedCaller first = admitted("first", gate);
        QueuedCaller waiter = QueuedCaller.startWithin("waiter", gate, Duration.ofNanos(1), served);
        Await.until("waiter queued", () -> gate.queueLength() == 1);

        clock.onNextReadBy(waiter.thread(), () -> {
            leave(first);
            clock.set(Duration.ofNanos(1));
        });

        assertThat(waiter.outcome()).isEqualTo("QUEUE_TIMEOUT");
        assertThat(served).containsExactly("first");
        assertThat(gate.shedCount()).isZero();
        assertIdle(gate);
    }

    private static void leave(QueuedCaller caller) {
        try {
            caller.leave();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
