package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link AdmissionGate#isCurrentThreadAdmitted()}: the holder of a permit, and work forked from it while it lasts. */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class CurrentThreadAdmittedTests {

    private final AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(1).build());

    @Test
    void aThreadIsAdmittedWhileItHoldsAPermitAndNotBeforeOrAfter() {
        assertThat(AdmissionGate.isCurrentThreadAdmitted()).isFalse();
        try (Permit permit = gate.acquire()) {
            assertThat(AdmissionGate.isCurrentThreadAdmitted()).isTrue();
        }
        assertThat(AdmissionGate.isCurrentThreadAdmitted()).isFalse();
    }

    @Test
    void aThreadStartedInsideAnAdmittedOperationIsAdmittedUntilTheOperationEndsThenEntersOnItsOwn() throws Exception {
        CountDownLatch asked = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        AtomicBoolean whileHeld = new AtomicBoolean();
        AtomicBoolean afterwards = new AtomicBoolean(true);
        AtomicBoolean enteredOnItsOwn = new AtomicBoolean();
        Thread forked;
        try (Permit permit = gate.acquire()) {
            forked = Thread.ofVirtual().start(() -> {
                whileHeld.set(AdmissionGate.isCurrentThreadAdmitted());
                asked.countDown();
                try {
                    released.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                afterwards.set(AdmissionGate.isCurrentThreadAdmitted());
                try (Permit own = gate.acquire()) {
                    enteredOnItsOwn.set(AdmissionGate.isCurrentThreadAdmitted());
                }
            });
            asked.await();
        }
        released.countDown();
        forked.join();

        assertThat(whileHeld).isTrue();
        assertThat(afterwards).isFalse();
        assertThat(enteredOnItsOwn).isTrue();
    }
}
