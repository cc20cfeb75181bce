package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A request admitted once is a unit of work in progress: its later operations are still admitted while the gate shuts
 * down (only new requests are refused), and wait within the request's deadline rather than the queue wait. An
 * operation that only read makes the request in progress as one that wrote does.
 */
class UnitOfWorkTests {

    /** A request deadline long enough never to pass in a test. */
    private static final Duration DEADLINE = Duration.ofMinutes(5);

    private final AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(1)
            .maxQueued(4).queueWait(Duration.ZERO).build());

    private void runOneOperation() {
        try (Permit permit = gate.acquire()) {
            permit.recordOutcome(ExecutionOutcome.COMMITTED);
            permit.recordOnlyRead();
        }
    }

    @Test
    void aShutdownLetsARequestInProgressFinishItsOperationsAndRefusesANewOne() throws Exception {
        try (RequestCommits.Scope request = RequestCommits.track()) {
            runOneOperation();
            gate.shutDown();
            try (Permit later = gate.acquire()) {
                assertThat(later.isReleased()).as("the request's later operation, admitted while shutting down")
                        .isFalse();
            }
        }
        try (RequestCommits.Scope newRequest = RequestCommits.track()) {
            BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class, gate::acquire);
            assertThat(refused.reason()).as("a request not admitted before").isEqualTo(RejectionReason.SHUTTING_DOWN);
        }
        BulkheadRejectedException untracked = catchThrowableOfType(BulkheadRejectedException.class, gate::acquire);
        assertThat(untracked.reason()).isEqualTo(RejectionReason.SHUTTING_DOWN);
        assertThat(gate.awaitDrained(Duration.ofSeconds(30))).isTrue();
    }

    @Test
    void theGateCountsTheRefusalsOfLaterOperationsOfRequestsInProgressApartFromNewRequests() throws Exception {
        try (HeldElsewhere running = HeldElsewhere.acquire(gate, 1)) {
            // A queue wait of 0 and no request deadline: each is refused at once.
            assertThat(acquireInRequest(true, null)).isEqualTo(RejectionReason.QUEUE_TIMEOUT);
            assertThat(acquireInRequest(false, null)).isEqualTo(RejectionReason.QUEUE_TIMEOUT);
            assertThat(catchThrowableOfType(BulkheadRejectedException.class, gate::acquire)).as("no request").isNotNull();
        }
        assertThat(gate.refusedInProgress()).as("the later operation's refusal alone").isOne();
    }

    @Test
    void aLaterOperationOfARequestInProgressWaitsWithinTheRequestsDeadlineNotTheQueueWait() throws Exception {
        CompletableFuture<RejectionReason> firstOfANewRequest = new CompletableFuture<>();
        CompletableFuture<RejectionReason> laterOfARequestInProgress = new CompletableFuture<>();
        HeldElsewhere running = HeldElsewhere.acquire(gate, 1);
        try {
            Thread.ofVirtual().start(() -> firstOfANewRequest.complete(acquireInRequest(false, DEADLINE)));
            assertThat(firstOfANewRequest.get(30, TimeUnit.SECONDS)).as("a queue wait of 0 never waits")
                    .isEqualTo(RejectionReason.QUEUE_TIMEOUT);
            Thread.ofVirtual().start(() -> laterOfARequestInProgress.complete(acquireInRequest(true, DEADLINE)));
            while (gate.waiting() == 0 && !laterOfARequestInProgress.isDone()) {
                Thread.onSpinWait();
            }
        } finally {
            running.close();
        }
        assertThat(laterOfARequestInProgress.get(30, TimeUnit.SECONDS))
                .as("served once the place freed, within the request's deadline").isNull();
    }

    /**
     * Asks {@link #gate} as an operation of a request with {@code deadline} (none when null), in progress when
     * {@code inProgress} (an operation of it ran before, on a gate of its own); returns null when admitted, else why not.
     */
    private RejectionReason acquireInRequest(boolean inProgress, @Nullable Duration deadline) {
        try (RequestCommits.Scope request = RequestCommits.track();
             RequestDeadline.Scope bound = deadline == null ? null : RequestDeadline.in(deadline).bind()) {
            if (inProgress) {
                AdmissionGate lookup = new AdmissionGate("lookup", GateConfig.builder().maxConcurrent(1).build());
                try (Permit first = lookup.acquire()) {
                    first.recordOutcome(ExecutionOutcome.COMMITTED);
                    first.recordOnlyRead();
                }
            }
            try (Permit permit = gate.acquire()) {
                return null;
            }
        } catch (BulkheadRejectedException refused) {
            return refused.reason();
        }
    }
}
