package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class RequestDeadlineTests {

    private final List<String> told = new ArrayList<>();
    private final AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(1).maxQueued(1)
            .queueWait(Duration.ofHours(1)).build(), new GateListener() {
                @Override
                public void onAdmitted(String workload, long queueWaitNanos) {
                    told.add("admitted");
                }

                @Override
                public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
                    told.add(reason + (queueWaitNanos == NEVER_ADMITTED ? " never admitted" : " after waiting"));
                }
            });

    @Test
    void aSpentDeadlineIsRefusedAtTheGateBeforeAnyPlaceIsTaken() {
        try (RequestDeadline.Scope bound = RequestDeadline.in(Duration.ZERO).bind()) {
            BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class, gate::acquire);
            BulkheadRejectedException refusedWithin = catchThrowableOfType(BulkheadRejectedException.class,
                    () -> gate.acquireWithin(Duration.ofHours(1)));

            assertThat(refused.reason()).isEqualTo(RejectionReason.INSUFFICIENT_TIME);
            assertThat(refusedWithin.reason()).isEqualTo(RejectionReason.INSUFFICIENT_TIME);
        }
        assertThat(told).containsExactly("INSUFFICIENT_TIME never admitted", "INSUFFICIENT_TIME never admitted");
        assertThat(gate.active()).isZero();
        assertThat(gate.waiting()).isZero();
    }

    @Test
    void anAdmissionGetsWhatIsLeftOfTheRequestAndTheLeastOfTheRequestsAndItsOwnBudget() {
        try (RequestDeadline.Scope bound = RequestDeadline.in(Duration.ofMinutes(1)).bind()) {
            try (Permit permit = gate.acquire()) {
                assertThat(permit.remainingNanos()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1).toNanos());
            }
            try (Permit permit = gate.acquireWithin(Duration.ofHours(1))) {
                assertThat(permit.remainingNanos()).as("the request's minute, not the call's hour")
                        .isLessThanOrEqualTo(Duration.ofMinutes(1).toNanos());
            }
            try (Permit permit = gate.acquireWithin(Duration.ofSeconds(1))) {
                assertThat(permit.remainingNanos()).as("the call's second, shorter than the request's minute")
                        .isLessThanOrEqualTo(Duration.ofSeconds(1).toNanos());
            }
        }
        try (Permit permit = gate.acquire()) {
            assertThat(permit.remainingNanos()).as("outside the scope").isEqualTo(Permit.NO_DEADLINE);
        }
    }

    @Test
    void aWaitEndsWhenTheRequestsDeadlineDoesNotWhenTheQueueWaitDoes() throws Exception {
        // The deadline must still have time left when the call reaches the gate, or the call is refused on entry
        // (INSUFFICIENT_TIME) without ever waiting: a millisecond was eaten by a pause on a loaded machine. A second
        // leaves room for any pause seen so far and is still an hour short of the queue wait, which is what is told.
        try (HeldElsewhere running = HeldElsewhere.acquire(gate, 1);
             RequestDeadline.Scope bound = RequestDeadline.in(Duration.ofSeconds(1)).bind()) {
            BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class, gate::acquire);

            assertThat(refused.reason()).isEqualTo(RejectionReason.QUEUE_TIMEOUT);
            assertThat(told).last().isEqualTo("QUEUE_TIMEOUT after waiting");
            assertThat(gate.waiting()).isZero();
        }
    }

    @Test
    void lessTimeLeftThanTheWorkloadsOperationsUsuallyTakeIsRefusedOnEntryAndEnoughIsAdmitted() {
        usuallyNeeded(Duration.ofMinutes(10));

        try (RequestDeadline.Scope bound = RequestDeadline.in(Duration.ofMinutes(1)).bind()) {
            BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class, gate::acquire);
            assertThat(refused.reason()).isEqualTo(RejectionReason.INSUFFICIENT_TIME);
        }
        BulkheadRejectedException refusedWithin = catchThrowableOfType(BulkheadRejectedException.class,
                () -> gate.acquireWithin(Duration.ofMinutes(1)));
        assertThat(refusedWithin.reason()).as("a budget of the call's own").isEqualTo(RejectionReason.INSUFFICIENT_TIME);
        try (Permit enough = gate.acquireWithin(Duration.ofHours(1))) {
            assertThat(enough.remainingNanos()).isPositive();
        }
        try (Permit noDeadline = gate.acquire()) {
            assertThat(noDeadline.remainingNanos()).as("without a deadline nothing is judged")
                    .isEqualTo(Permit.NO_DEADLINE);
        }
        assertThat(told).containsExactly("INSUFFICIENT_TIME never admitted", "INSUFFICIENT_TIME never admitted",
                "admitted", "admitted");
    }

    @Test
    void aWaiterLeftWithLessThanAnOperationNeedsWhenItsPermitComesIsRefusedAndGivesThePlaceBack() throws Exception {
        usuallyNeeded(Duration.ofMinutes(1));
        HeldElsewhere running = HeldElsewhere.acquire(gate, 1);
        try (ExecutorService caller = Executors.newVirtualThreadPerTaskExecutor()) {
            var waiter = caller.submit(() -> {
                try (Permit permit = gate.acquireWithin(Duration.ofMinutes(30))) {
                    return "admitted";
                } catch (BulkheadRejectedException refused) {
                    return refused.reason().name();
                }
            });
            while (gate.waiting() == 0) {
                Thread.onSpinWait();
            }
            // While it waits, operations come to need more than its half hour.
            usuallyNeeded(Duration.ofHours(1));
            running.close();

            assertThat(waiter.get()).isEqualTo("INSUFFICIENT_TIME");
        }
        assertThat(gate.active()).isZero();
        assertThat(gate.waiting()).isZero();
        assertThat(told).last().isEqualTo("INSUFFICIENT_TIME after waiting");
    }

    @Test
    void insideABoundDeadlineTheEarlierOfTwoHoldsAndClosingRestoresTheOuterOne() {
        RequestDeadline request = RequestDeadline.in(Duration.ofMinutes(1));
        try (RequestDeadline.Scope outer = request.bind()) {
            try (RequestDeadline.Scope later = RequestDeadline.in(Duration.ofHours(1)).bind()) {
                assertThat(RequestDeadline.current()).get().extracting(RequestDeadline::remaining)
                        .satisfies(left -> assertThat(left).isLessThanOrEqualTo(Duration.ofMinutes(1)));
            }
            try (RequestDeadline.Scope earlier = RequestDeadline.in(Duration.ZERO).bind()) {
                assertThat(RequestDeadline.current()).get().matches(RequestDeadline::isSpent);
            }
            assertThat(RequestDeadline.current()).get().matches(deadline -> !deadline.isSpent());
        }
        assertThat(RequestDeadline.current()).isEmpty();
    }

    @Test
    void aDeadlineStaysWithItsThreadUnlessTheWorkHandedOnIsWrapped() throws Exception {
        RequestDeadline request = RequestDeadline.in(Duration.ofMinutes(1));
        AtomicReference<Optional<RequestDeadline>> started = new AtomicReference<>();
        try (RequestDeadline.Scope bound = request.bind();
             ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            Thread child = Thread.ofVirtual().start(() -> started.set(RequestDeadline.current()));
            child.join();
            Optional<RequestDeadline> handedOn = executor.submit(RequestDeadline::current).get();
            Optional<RequestDeadline> wrapped = executor.submit(request.wrap(RequestDeadline::current)).get();

            assertThat(started.get()).as("a thread started inside the scope").isEmpty();
            assertThat(handedOn).as("a task handed to an executor").isEmpty();
            assertThat(wrapped).as("a wrapped task").isPresent();
        }
    }

    @Test
    void aScopeIsClosedOnTheThreadThatBoundIt() throws Exception {
        RequestDeadline.Scope bound = RequestDeadline.in(Duration.ofMinutes(1)).bind();
        AtomicReference<Throwable> closedElsewhere = new AtomicReference<>();
        Thread other = Thread.ofVirtual().start(() -> {
            try {
                bound.close();
            } catch (Throwable failure) {
                closedElsewhere.set(failure);
            }
        });
        other.join();

        assertThat(closedElsewhere.get()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("must be unbound on that thread");
        assertThat(RequestDeadline.current()).as("still bound here").isPresent();
        bound.close();
        bound.close();
        assertThat(RequestDeadline.current()).isEmpty();
    }

    @Test
    void aBudgetTooLongToCountIsRefused() {
        assertThatThrownBy(() -> RequestDeadline.in(Duration.ofDays(365L * 300)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nanoseconds");
    }

    /** Makes the gate's recent operations with a deadline all have held their permits for {@code held}. */
    private void usuallyNeeded(Duration held) {
        // Slots are chosen at random: this many records fill every one of the 32 and publish the median.
        for (int i = 0; i < 10_000; i++) {
            gate.holdTimes().record(held.toNanos());
        }
        assertThat(gate.holdTimes().medianNanos()).isEqualTo(held.toNanos());
    }
}
