package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class RequestCommitsTests {

    private final AdmissionGate gate = new AdmissionGate("orders",
            GateConfig.builder().maxConcurrent(1).maxQueued(0).build());

    @Test
    void aRefusalAfterTwoCommittedOperationsOfTheRequestSaysTwoHadCommitted() throws Exception {
        try (RequestCommits.Scope request = RequestCommits.track()) {
            runWith(ExecutionOutcome.COMMITTED);
            runWith(ExecutionOutcome.COMMITTED);

            BulkheadRejectedException refused = refusedWhileHeldElsewhere();

            assertThat(refused.committedBefore()).isEqualTo(2);
            assertThat(refused.getMessage()).contains("2 earlier operation(s) of the same request had committed")
                    .contains("not safe to retry blindly");
            assertThat(RequestCommits.count()).isEqualTo(2);
        }
        assertThat(RequestCommits.count()).as("once the request has ended").isZero();
    }

    @Test
    void aCommitWhoseOutcomeIsUnknownCountsAndARollbackDoesNot() throws Exception {
        try (RequestCommits.Scope request = RequestCommits.track()) {
            runWith(ExecutionOutcome.ROLLED_BACK);
            runWith(ExecutionOutcome.FAILED);
            assertThat(refusedWhileHeldElsewhere().committedBefore()).as("nothing of the request was written").isZero();

            runWith(ExecutionOutcome.UNKNOWN);
            assertThat(refusedWhileHeldElsewhere().committedBefore()).as("its commit may have taken effect").isEqualTo(1);
        }
    }

    @Test
    void anOperationThatOnlyReadIsNotCountedSoARefusalAfterReadsSaysNothingWasWritten() throws Exception {
        try (RequestCommits.Scope request = RequestCommits.track()) {
            for (int i = 0; i < 7; i++) {
                try (Permit permit = gate.acquire()) {
                    permit.recordOutcome(ExecutionOutcome.COMMITTED);
                    permit.recordOnlyRead();
                }
            }
            BulkheadRejectedException refused = refusedWhileHeldElsewhere();
            assertThat(refused.committedBefore()).as("seven read-only lookups wrote nothing").isZero();
            assertThat(refused.getMessage()).doesNotContain("not safe to retry");

            runWith(ExecutionOutcome.COMMITTED);
            assertThat(refusedWhileHeldElsewhere().committedBefore()).as("the one that wrote").isOne();
        }
    }

    @Test
    void withoutATrackedRequestNothingIsCountedAndEachRequestStartsFromNone() throws Exception {
        runWith(ExecutionOutcome.COMMITTED);
        assertThat(refusedWhileHeldElsewhere().committedBefore()).isZero();

        try (RequestCommits.Scope first = RequestCommits.track()) {
            runWith(ExecutionOutcome.COMMITTED);
        }
        try (RequestCommits.Scope second = RequestCommits.track()) {
            assertThat(refusedWhileHeldElsewhere().committedBefore()).as("the first request's commit is not this one's")
                    .isZero();
        }
    }

    @Test
    void aRefusalWithNothingCommittedKeepsItsMessage() {
        BulkheadRejectedException refused = new BulkheadRejectedException("orders", RejectionReason.ADMISSION_FULL,
                false);

        assertThat(refused.committedBefore()).isZero();
        assertThat(refused.getMessage()).isEqualTo("Bulkhead 'orders' is full: no admission permit left, rejected at once");
    }

    private void runWith(ExecutionOutcome outcome) {
        try (Permit permit = gate.acquire()) {
            permit.recordOutcome(outcome);
        }
    }

    private BulkheadRejectedException refusedWhileHeldElsewhere() throws InterruptedException {
        try (HeldElsewhere running = HeldElsewhere.acquire(gate, 1)) {
            BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class, gate::acquire);
            assertThat(refused.reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
            return refused;
        }
    }
}
