package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A gate shut down: new work refused with a reason of its own, admitted work finishing, the drain told. */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class GateShutdownTests {

    private static GateConfig limits(int maxConcurrent, int maxQueued) {
        return GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(maxQueued)
                .queueWait(Duration.ofMinutes(1)).build();
    }

    @Test
    void aGateShutDownRefusesEveryNewAdmissionAtOnceAsShuttingDownWhileItHasRoom() {
        AdmissionGate plain = new AdmissionGate("orders", limits(4, 4));
        List<RejectionReason> heard = new CopyOnWriteArrayList<>();
        AdmissionGate listened = new AdmissionGate("reports", limits(4, 4), new GateListener() {
            @Override
            public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
                heard.add(reason);
            }
        });
        AdmissionGate underRules = new AdmissionGate("tenants", limits(4, 4).toBuilder()
                .admissionRules(AdmissionRules.builder().fairShares(true).build()).build());

        for (AdmissionGate gate : List.of(plain, listened, underRules)) {
            gate.shutDown();

            assertThat(catchThrowableOfType(BulkheadRejectedException.class, gate::acquire).reason())
                    .isEqualTo(RejectionReason.SHUTTING_DOWN);
            assertThat(catchThrowableOfType(BulkheadRejectedException.class,
                    () -> gate.acquireWithin(Duration.ofSeconds(5))).reason())
                    .isEqualTo(RejectionReason.SHUTTING_DOWN);
            assertThat(gate.active()).isZero();
            assertThat(gate.waiting()).isZero();
            assertThat(gate.isShuttingDown()).isTrue();
        }
        assertThat(heard).containsExactly(RejectionReason.SHUTTING_DOWN, RejectionReason.SHUTTING_DOWN);
        assertThat(new BulkheadRejectedException("orders", RejectionReason.SHUTTING_DOWN, false).getMessage())
                .contains("'orders' is shutting down");
        assertThat(RejectionReason.SHUTTING_DOWN.tagValue()).isEqualTo("shutting_down");
    }

    @Test
    void runningAndQueuedOperationsAdmittedBeforeTheShutdownFinishAndThenTheGateIsDrained() throws Exception {
        AdmissionGate gate = new AdmissionGate("orders", limits(1, 1));
        List<String> served = new CopyOnWriteArrayList<>();
        HeldElsewhere running = HeldElsewhere.acquire(gate, 1);
        QueuedCaller queued = QueuedCaller.start("queued", gate, served);
        Await.until("the caller waits in the queue", () -> gate.queueLength() == 1);

        gate.shutDown();

        assertThat(catchThrowableOfType(BulkheadRejectedException.class, gate::acquire).reason())
                .isEqualTo(RejectionReason.SHUTTING_DOWN);
        assertThat(gate.awaitDrained(Duration.ZERO)).isFalse();
        running.close();
        assertThat(queued.outcome()).isEqualTo("admitted");
        assertThat(gate.isDrained()).isFalse();
        queued.leave();
        assertThat(gate.awaitDrained(Duration.ofMinutes(1))).isTrue();
        assertThat(gate.isDrained()).isTrue();
        assertThat(served).containsExactly("queued");
    }

    @Test
    void anIdleGateIsDrainedAsSoonAsItShutsDownAndNotBefore() throws Exception {
        AdmissionGate gate = new AdmissionGate("orders", limits(2, 0));
        gate.acquire().close();

        assertThat(gate.awaitDrained(Duration.ZERO)).isFalse();
        gate.shutDown();
        gate.shutDown();

        assertThat(gate.awaitDrained(Duration.ZERO)).isTrue();
    }

    @Test
    void aBorrowerShutDownRefusesToBorrowAndItsBorrowedPlacesDrain() throws Exception {
        LendingPool pool = new LendingPool("shop");
        AdmissionGate lender = new AdmissionGate("reports", limits(2, 0).toBuilder()
                .lending(GateLending.of(pool, 0, true)).build());
        AdmissionGate borrower = new AdmissionGate("orders", limits(1, 0).toBuilder()
                .lending(GateLending.of(pool, 2, false)).build());
        HeldElsewhere own = HeldElsewhere.acquire(borrower, 1);
        HeldElsewhere borrowing = HeldElsewhere.acquire(borrower, 1);
        assertThat(borrower.borrowed()).isEqualTo(1);

        borrower.shutDown();

        assertThat(catchThrowableOfType(BulkheadRejectedException.class, borrower::acquire).reason())
                .isEqualTo(RejectionReason.SHUTTING_DOWN);
        assertThat(borrower.borrowed()).isEqualTo(1);
        own.close();
        assertThat(borrower.isDrained()).isFalse();
        borrowing.close();
        assertThat(borrower.awaitDrained(Duration.ofMinutes(1))).isTrue();
        lender.acquire().close();
    }

    @Test
    void noOperationIsAdmittedUnseenWhileTheGateShutsDown() throws Exception {
        AdmissionGate gate = new AdmissionGate("orders", limits(4, 4));
        AtomicInteger heldPastTheDrain = new AtomicInteger();
        CountDownLatch allRunning = new CountDownLatch(8);
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            callers.add(Thread.ofPlatform().start(() -> {
                allRunning.countDown();
                while (true) {
                    try (Permit permit = gate.acquire()) {
                        if (gate.isDrained() && !permit.isReleased()) {
                            heldPastTheDrain.incrementAndGet();
                        }
                    } catch (BulkheadRejectedException refused) {
                        if (refused.reason() == RejectionReason.SHUTTING_DOWN) {
                            return;
                        }
                    }
                }
            }));
        }
        allRunning.await();

        gate.shutDown();

        assertThat(gate.awaitDrained(Duration.ofMinutes(1))).isTrue();
        for (Thread caller : callers) {
            caller.join();
        }
        assertThat(heldPastTheDrain).hasValue(0);
        assertThat(gate.active()).isZero();
        assertThat(gate.waiting()).isZero();
    }
}
