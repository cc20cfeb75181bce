package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A gate saturated on purpose: every place taken with no operation behind it, every admission refused at once, and
 * every place back, once, when the saturation is closed.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class GateSaturationTests {

    /** Long enough that a caller that queued instead of being refused would hang the test, not pass it. */
    private static final Duration QUEUE_WAIT = Duration.ofMinutes(5);

    private static AdmissionGate gate(QueueDiscipline discipline, GateListener listener) {
        return new AdmissionGate("orders", GateConfig.builder().maxConcurrent(2).maxQueued(3).queueWait(QUEUE_WAIT)
                .queueDiscipline(discipline).build(), listener);
    }

    @ParameterizedTest
    @EnumSource(QueueDiscipline.class)
    void aSaturatedGateRefusesEveryAdmissionAtOnceWithAdmissionFullUntilClosed(QueueDiscipline discipline) {
        AdmissionGate gate = gate(discipline, GateListener.NONE);

        try (GateSaturation saturation = gate.saturate()) {
            assertThat(saturation.running()).isEqualTo(2);
            assertThat(saturation.queued()).isEqualTo(3);
            assertThat(gate.active()).isEqualTo(2);
            assertThat(gate.waiting()).isEqualTo(3);
            for (int caller = 0; caller < 6; caller++) {
                BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class, gate::acquire);
                assertThat(refused.reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
                assertThat(refused.workload()).isEqualTo("orders");
            }
            assertThat(catchThrowableOfType(BulkheadRejectedException.class,
                    () -> gate.acquireWithin(Duration.ofMinutes(1))).reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
        }

        assertThat(gate.availableExecutionPermits()).isEqualTo(2);
        assertThat(gate.availableAdmissionPermits()).isEqualTo(5);
        try (Permit admitted = gate.acquire()) {
            assertThat(admitted.isReleased()).isFalse();
        }
    }

    @Test
    void closingTwiceAndFromAnotherThreadGivesThePlacesBackOnce() throws Exception {
        AdmissionGate gate = gate(QueueDiscipline.FIFO, GateListener.NONE);
        GateSaturation saturation = gate.saturate();

        Thread closer = Thread.ofVirtual().start(saturation::close);
        closer.join();
        saturation.close();

        assertThat(saturation.isReleased()).isTrue();
        assertThat(gate.active()).isZero();
        assertThat(gate.waiting()).isZero();
        assertThat(gate.availableAdmissionPermits()).as("no place given back twice").isEqualTo(5);
        try (GateSaturation again = gate.saturate()) {
            assertThat(gate.availableAdmissionPermits()).isZero();
        }
    }

    @Test
    void aGateInUseIsNotSaturatedAndWhatRunsInItKeepsItsPlace() {
        AdmissionGate gate = gate(QueueDiscipline.FIFO, GateListener.NONE);

        try (Permit running = gate.acquire()) {
            assertThatIllegalStateException().isThrownBy(gate::saturate)
                    .withMessage("Bulkhead 'orders' cannot be saturated while it is in use (1 running, 0 waiting):"
                            + " a saturation takes every place of an idle gate");
            assertThat(gate.active()).isEqualTo(1);
            assertThat(gate.availableAdmissionPermits()).isEqualTo(4);
        }
        gate.saturate().close();
        assertThat(gate.availableAdmissionPermits()).isEqualTo(5);
    }

    @Test
    void thePlaceOfAPermitClosedElsewhereWhoseOwnerThenEndedDoesNotKeepTheGateBusy() throws Exception {
        AdmissionGate gate = gate(QueueDiscipline.FIFO, GateListener.NONE);
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Permit[] closedElsewhere = new Permit[1];
        Thread owner = Thread.ofVirtual().start(() -> {
            closedElsewhere[0] = gate.acquire();
            acquired.countDown();
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        acquired.await();
        // Refused while its owner lives: the place stays taken until someone notices that the owner has ended.
        catchThrowableOfType(IllegalStateException.class, closedElsewhere[0]::close);
        end.countDown();
        owner.join();

        try (GateSaturation saturation = gate.saturate()) {
            assertThat(gate.active()).isEqualTo(2);
        }
        assertThat(gate.availableAdmissionPermits()).isEqualTo(5);
    }

    @Test
    void theListenerHearsOnlyTheRefusalsNeverAnAdmissionOrARelease() {
        List<String> heard = new CopyOnWriteArrayList<>();
        AdmissionGate gate = gate(QueueDiscipline.FIFO, new GateListener() {
            @Override
            public void onAdmitted(String workload, long queueWaitNanos) {
                heard.add("admitted");
            }

            @Override
            public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
                heard.add("rejected " + reason);
            }

            @Override
            public void onReleased(String workload, ExecutionOutcome outcome, long executionNanos) {
                heard.add("released " + outcome);
            }
        });

        try (GateSaturation saturation = gate.saturate()) {
            catchThrowableOfType(BulkheadRejectedException.class, gate::acquire);
        }

        assertThat(heard).containsExactly("rejected ADMISSION_FULL");
    }

    @ParameterizedTest
    @EnumSource(QueueDiscipline.class)
    void aCallerQueuedAfterAGrowRunsOnceTheSaturationIsClosed(QueueDiscipline discipline) throws Exception {
        AdmissionGate gate = gate(discipline, GateListener.NONE);
        List<String> served = new CopyOnWriteArrayList<>();
        GateSaturation saturation = gate.saturate();
        gate.resizeQueued(4);
        QueuedCaller caller = QueuedCaller.start("after-grow", gate, served);
        Await.until("the caller waits in the queue", () -> gate.queueLength() == 1);

        saturation.close();

        assertThat(caller.outcome()).isEqualTo("admitted");
        assertThat(served).containsExactly("after-grow");
        caller.leave();
        assertThat(gate.active()).isZero();
        assertThat(gate.availableAdmissionPermits()).isEqualTo(6);
    }
}
