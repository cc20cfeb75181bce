package dev.dbbulkhead.gate;

import static dev.dbbulkhead.gate.AdmissionGateTests.admittedOrReason;
import static dev.dbbulkhead.gate.AdmissionGateTests.onAnotherThread;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.BulkheadMisuseException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A permit and the threads around its owner: another thread closing it (a misuse that must strand no place and lock
 * no thread out), and threads started inside the admitted operation (part of it, so refused while it lasts).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class PermitThreadsTests {

    private static AdmissionGate gate(int maxConcurrent) {
        return new AdmissionGate("orders", GateConfig.builder().maxConcurrent(maxConcurrent).build());
    }

    // --- a permit closed by another thread -----------------------------------------------------------------------

    @Test
    void aPermitClosedElsewhereWhileItsOwnerLivesIsGivenBackWhenTheOwnerEntersAgain() throws Exception {
        AdmissionGate gate = gate(1);
        try (Owner owner = new Owner()) {
            Permit handedOver = owner.call(gate::acquire);

            Throwable misuse = closeOnAnotherThread(handedOver);

            assertThat(misuse).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("may only be released by that thread");
            assertThat(gate.active()).as("nothing released while the owner may still run work under it").isOne();
            assertThat(owner.call(() -> admittedOrReason(gate))).as("the owner enters again").isEqualTo("admitted");
            assertThat(handedOver.isReleased()).isTrue();
            assertThat(gate.active() + gate.waiting()).isZero();
            assertThat(onAnotherThread(() -> admittedOrReason(gate))).as("the other thread enters").isEqualTo("admitted");
        }
    }

    @Test
    void aPermitClosedElsewhereWhileItsOwnerLivesIsGivenBackWhenTheOwnerNextAsksWhetherItIsAdmitted()
            throws Exception {
        AdmissionGate gate = gate(1);
        try (Owner owner = new Owner()) {
            // As a connection admitted where it was taken and closed on another thread leaves it.
            Permit handedOver = owner.call(gate::acquireAtBorrow);
            assertThat(closeOnAnotherThread(handedOver)).isInstanceOf(IllegalStateException.class);
            assertThat(owner.call(AdmissionGate::isCurrentThreadAdmitted))
                    .as("its next borrow is an operation of its own, not part of the ended one").isFalse();
            assertThat(owner.call(AdmissionGate::currentThreadHoldsBorrowPlace)).isFalse();
            assertThat(handedOver.isReleased()).isTrue();
            assertThat(gate.active() + gate.waiting()).isZero();
        }
    }

    @Test
    void aPermitClosedElsewhereAfterItsOwnerEndedIsGivenBackAtOnce() throws Exception {
        AdmissionGate gate = gate(1);
        Permit handedOver;
        try (Owner owner = new Owner()) {
            handedOver = owner.call(gate::acquire);
        }

        assertThat(closeOnAnotherThread(handedOver)).isInstanceOf(IllegalStateException.class);

        assertThat(handedOver.isReleased()).isTrue();
        assertThat(gate.active() + gate.waiting()).isZero();
        assertThat(onAnotherThread(() -> admittedOrReason(gate))).isEqualTo("admitted");
    }

    @Test
    void aPermitClosedElsewhereWhoseOwnerEndsLaterIsGivenBackWhenTheGateNeedsThePlace() throws Exception {
        AdmissionGate gate = gate(1);
        Permit handedOver;
        try (Owner owner = new Owner()) {
            handedOver = owner.call(gate::acquire);
            assertThat(closeOnAnotherThread(handedOver)).isInstanceOf(IllegalStateException.class);
            assertThat(gate.active()).isOne();
        }

        assertThat(onAnotherThread(() -> admittedOrReason(gate))).as("B = 1, Q = 0: the one place").isEqualTo("admitted");
        assertThat(handedOver.isReleased()).isTrue();
        assertThat(gate.active() + gate.waiting()).isZero();
    }

    @Test
    void aPermitClosedElsewhereAndThenByItsOwnerIsReleasedOnce() throws Exception {
        AdmissionGate gate = gate(2);
        try (HeldElsewhere other = HeldElsewhere.acquire(gate, 1)) {
            Permit handedOver;
            try (Owner owner = new Owner()) {
                handedOver = owner.call(gate::acquire);
                assertThat(closeOnAnotherThread(handedOver)).isInstanceOf(IllegalStateException.class);
                owner.call(() -> {
                    handedOver.close();
                    return null;
                });
                assertThat(gate.active()).isOne();
                assertThat(closeOnAnotherThread(handedOver)).as("still a misuse").isInstanceOf(IllegalStateException.class);
                assertThat(owner.call(() -> admittedOrReason(gate))).isEqualTo("admitted");
            }
            // The owner has ended: the next admission that finds no room looks at the handed-over permit again.
            try (HeldElsewhere second = HeldElsewhere.acquire(gate, 1)) {
                assertThat(onAnotherThread(() -> admittedOrReason(gate))).isEqualTo("ADMISSION_FULL");
                assertThat(gate.active()).as("never released twice").isEqualTo(2);
            }
            assertThat(gate.active()).isOne();
        }
        assertThat(gate.active() + gate.waiting()).isZero();
    }

    private static Throwable closeOnAnotherThread(Permit permit) {
        return onAnotherThread(() -> catchThrowable(permit::close));
    }

    // --- work forked inside an admitted operation ----------------------------------------------------------------

    @Test
    void threadsStartedInsideAnAdmittedOperationAreRefusedAsReentryWhileItLasts() throws Exception {
        AdmissionGate gate = gate(4);
        AdmissionGate otherGate = new AdmissionGate("reports", GateConfig.defaults());
        List<Object> seen = new ArrayList<>();
        try (Permit admitted = gate.acquire()) {
            seen.add(inNewThread(Thread.ofVirtual()::start, () -> misuseOrAdmitted(gate)));
            seen.add(inNewThread(Thread.ofPlatform()::start, () -> misuseOrAdmitted(gate)));
            seen.add(inNewThread(Thread.ofVirtual()::start, () -> misuseOrAdmitted(otherGate)));
            seen.add(inNewThread(Thread.ofVirtual()::start,
                    () -> inNewThread(Thread.ofVirtual()::start, () -> misuseOrAdmitted(gate))));
            try (ExecutorService perTask = Executors.newVirtualThreadPerTaskExecutor()) {
                seen.add(perTask.submit(() -> misuseOrAdmitted(gate)).get());
            }
            assertThat(gate.active()).isOne();
        }

        assertThat(seen).as("a virtual thread, a platform thread, another gate, a grandchild, a thread-per-task executor")
                .containsExactly("REENTRANT_ENTRY forked", "REENTRANT_ENTRY forked", "REENTRANT_ENTRY forked",
                        "REENTRANT_ENTRY forked", "REENTRANT_ENTRY forked");
        assertThat(gate.active() + gate.waiting()).isZero();
    }

    @Test
    void aThreadStartedInsideAnAdmittedOperationEntersAsAnOperationOfItsOwnOnceItHasEnded() throws Exception {
        AdmissionGate gate = gate(2);
        SynchronousQueue<String> results = new SynchronousQueue<>();
        CountDownLatch enter = new CountDownLatch(1);
        CountDownLatch enterAgain = new CountDownLatch(1);
        Thread child;
        try (Permit first = gate.acquire()) {
            child = Thread.ofVirtual().start(() -> {
                try {
                    enter.await();
                    results.put(misuseOrAdmitted(gate));
                    enterAgain.await();
                    results.put(misuseOrAdmitted(gate));
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
        }
        try (Permit later = gate.acquire()) {
            // The parent is inside another admission now, not the one the child was started in.
            enter.countDown();
            assertThat(results.take()).isEqualTo("admitted");
        }
        enterAgain.countDown();
        assertThat(results.take()).isEqualTo("admitted");
        child.join();
        assertThat(gate.active() + gate.waiting()).isZero();
    }

    /** Enters {@code gate} and leaves: "admitted", the refusal's reason, or the misuse's kind. */
    private static String misuseOrAdmitted(AdmissionGate gate) {
        try {
            return admittedOrReason(gate);
        } catch (BulkheadMisuseException misuse) {
            return misuse.kind() + (misuse.getMessage().contains("started inside an operation") ? " forked" : "");
        }
    }

    /** Starts a thread with {@code starter} on the current thread, runs {@code task} in it, and returns the result. */
    private static <T> T inNewThread(Function<Runnable, Thread> starter, Supplier<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        starter.apply(() -> {
            try {
                result.complete(task.get());
            } catch (Throwable failure) {
                result.completeExceptionally(failure);
            }
        });
        return result.join();
    }

    /** A thread that runs what it is given, one call at a time, until it is closed and has ended. */
    private static final class Owner implements AutoCloseable {

        private final CompletableFuture<Thread> started = new CompletableFuture<>();
        private final ExecutorService thread = Executors.newSingleThreadExecutor(task -> {
            Thread created = Thread.ofVirtual().unstarted(task);
            started.complete(created);
            return created;
        });

        Owner() throws Exception {
            // Started now, by a thread that holds nothing: its record is its own.
            thread.submit(() -> null).get();
        }

        <T> T call(Callable<T> task) throws Exception {
            return thread.submit(task).get();
        }

        @Override
        public void close() throws Exception {
            thread.shutdown();
            started.get().join();
        }
    }
}
