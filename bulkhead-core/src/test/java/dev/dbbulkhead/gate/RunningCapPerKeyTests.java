package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.testing.Await;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cap on the operations one key runs at once ({@link AdmissionRules#maxRunningPerKey()}): a key running its cap
 * waits while other keys take the free places, keeps its place in the order, and runs once one of its operations ends.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class RunningCapPerKeyTests {

    private static final OperationClass ACME = OperationClass.of(Criticality.DEFAULT, "acme");
    private static final OperationClass GLOBEX = OperationClass.of(Criticality.DEFAULT, "globex");
    private static final OperationClass INITECH = OperationClass.of(Criticality.DEFAULT, "initech");
    private static final OperationClass KEYLESS = OperationClass.of(Criticality.DEFAULT);

    private final CallersInTurn turns = new CallersInTurn();

    @Test
    void aKeyRunningItsCapWaitsWithPlacesFreeWhileAnotherKeyRunsAtOnce() throws Exception {
        AdmissionGate gate = cappedGate(3, 4, 1, Duration.ofMinutes(1));
        turns.run(gate, "acme-0", ACME);

        turns.queue(gate, "acme-1", ACME);
        turns.run(gate, "globex-0", GLOBEX);

        assertThat(gate.active()).as("two places run, one stays free: acme runs its cap").isEqualTo(2);
        assertThat(gate.queueLength()).isEqualTo(1);
        turns.caller("acme-0").leave();
        Await.until("acme-1 runs", () -> turns.served().contains("acme-1"));
        assertThat(turns.served()).containsExactly("acme-0", "globex-0", "acme-1");
        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void aReleaseOfAnotherKeyGoesToTheNextServableWaiterNotToTheCappedOne() throws Exception {
        AdmissionGate gate = cappedGate(2, 4, 1, Duration.ofMinutes(1));
        turns.run(gate, "acme-0", ACME);
        turns.run(gate, "globex-0", GLOBEX);
        turns.queue(gate, "acme-1", ACME);
        turns.queue(gate, "globex-1", GLOBEX);
        turns.queue(gate, "initech-0", INITECH);

        turns.caller("globex-0").leave();
        Await.until("the next served", () -> turns.served().size() == 3);
        assertThat(turns.served().get(2)).as("acme-1 came first but acme runs its cap; globex runs none now")
                .isEqualTo("globex-1");

        turns.caller("globex-1").leave();
        Await.until("the next served", () -> turns.served().size() == 4);
        assertThat(turns.served().get(3)).isEqualTo("initech-0");

        turns.caller("acme-0").leave();
        Await.until("the next served", () -> turns.served().size() == 5);
        assertThat(turns.served().get(4)).isEqualTo("acme-1");
        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void aFreePlaceLeftByTheCapIsTakenByANewcomerOfAnotherKeyThroughTheOrder() throws Exception {
        AdmissionGate gate = cappedGate(2, 4, 1, Duration.ofMinutes(1));
        turns.run(gate, "acme-0", ACME);
        turns.run(gate, "globex-0", GLOBEX);
        turns.queue(gate, "acme-1", ACME);
        turns.caller("globex-0").leave();
        Await.until("globex-0 gone", () -> gate.active() == 1);

        turns.run(gate, "keyless-0", KEYLESS);

        assertThat(gate.active()).isEqualTo(2);
        assertThat(gate.queueLength()).as("acme-1 still waits for acme-0").isEqualTo(1);
        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void aCappedWaiterWhoseWaitRunsOutIsRefusedAsAnyWaiterAndLeavesNoPlaceBehind() throws Exception {
        AdmissionGate gate = cappedGate(4, 4, 1, Duration.ZERO);
        turns.run(gate, "acme-0", ACME);

        assertThat(CallersInTurn.refusal(gate, ACME)).isEqualTo(RejectionReason.QUEUE_TIMEOUT);
        assertThat(CallersInTurn.refusal(gate, GLOBEX)).as("admitted, ran and released").isNull();
        assertThat(gate.active()).isEqualTo(1);
        turns.leaveAllAndCheckIdle(gate);
        assertThat(gate.flowsKnown()).as("no flow left counted as running").isZero();
    }

    @Test
    void aCapOfTwoLetsAKeyRunTwoAtOnceAndNoMore() throws Exception {
        AdmissionGate gate = cappedGate(4, 4, 2, Duration.ofMinutes(1));
        turns.run(gate, "acme-0", ACME);
        turns.run(gate, "acme-1", ACME);
        turns.queue(gate, "acme-2", ACME);
        turns.run(gate, "globex-0", GLOBEX);
        turns.run(gate, "globex-1", GLOBEX);

        assertThat(gate.active()).isEqualTo(4);
        turns.caller("acme-1").leave();
        Await.until("acme-2 runs", () -> turns.served().contains("acme-2"));
        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void aBorrowerHoldsAKeyToItsCapOnLentPlacesTooWhileAnotherKeyBorrowsThem() throws Exception {
        LendingPool pool = new LendingPool("main");
        AdmissionGate lender = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(2)
                .lending(GateLending.of(pool, 0, true)).build());
        AdmissionGate borrower = new AdmissionGate("reports", GateConfig.builder().maxConcurrent(1).maxQueued(4)
                .queueWait(Duration.ofMinutes(1))
                .admissionRules(AdmissionRules.builder().fairShares(true).maxRunningPerKey(1).build())
                .lending(GateLending.of(pool, 2, false)).build());
        turns.run(borrower, "acme-0", ACME);

        turns.queue(borrower, "acme-1", ACME);
        assertThat(borrower.borrowed()).as("acme runs its cap: it takes no lent place").isZero();
        turns.run(borrower, "globex-0", GLOBEX);
        assertThat(borrower.borrowed()).as("globex runs on a lent place").isEqualTo(1);

        turns.caller("acme-0").leave();
        Await.until("acme-1 runs", () -> turns.served().contains("acme-1"));
        turns.leaveAllAndCheckIdle(borrower);
        assertThat(pool.inUse()).as("every ledger place back").isZero();
        assertThat(lender.active()).isZero();
    }

    private static AdmissionGate cappedGate(int maxConcurrent, int maxQueued, int cap, Duration queueWait) {
        return new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(maxQueued)
                .queueWait(queueWait)
                .admissionRules(AdmissionRules.builder().fairShares(true).maxRunningPerKey(cap).build()).build());
    }
}
