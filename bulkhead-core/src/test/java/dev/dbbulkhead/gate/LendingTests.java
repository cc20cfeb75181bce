package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Lending between two gates of one pool: a lender of B = 2 and a borrower of B = 1 that may borrow 2. */
class LendingTests {

    private final LendingPool pool = new LendingPool("main");
    private final AdmissionGate lender = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(2)
            .lending(GateLending.of(pool, 0, true)).build());
    private final AdmissionGate borrower = new AdmissionGate("reports", GateConfig.builder().maxConcurrent(1)
            .lending(GateLending.of(pool, 2, false)).build());
    /** Callers holding their permits, each on a thread of its own: a thread holds one permit at most. */
    private final List<QueuedCaller> callers = new ArrayList<>();
    private final List<String> served = new CopyOnWriteArrayList<>();

    @AfterEach
    void giveEverythingBack() throws InterruptedException {
        for (QueuedCaller caller : callers) {
            caller.leave();
        }
        assertThat(pool.inUse()).as("every ledger place back").isZero();
        assertThat(lender.active() + borrower.active()).isZero();
    }

    @Test
    void withoutLendingAGateKeepsItsFastPathAndItsPlacesToItself() {
        assertThat(GateConfig.defaults().lending().isNone()).isTrue();
        assertThat(GateLending.of(pool, 0, false).isNone()).as("neither lends nor borrows").isTrue();
        assertThat(new AdmissionGate("plain", GateConfig.defaults()).hasFastPath()).isTrue();
        assertThat(lender.hasFastPath()).isFalse();
        assertThat(borrower.hasFastPath()).isFalse();
    }

    @Test
    void whileTheLenderIsIdleTheBorrowerRunsItsOwnPlacesAndTheCeilingNeverMore() throws Exception {
        hold(borrower, 3);

        assertThat(borrower.active()).isEqualTo(3);
        assertThat(borrower.borrowed()).isEqualTo(2);
        assertThat(pool.inUse()).isEqualTo(2);
        assertThat(refusal(borrower)).as("the ceiling reached: its own gate is full").isEqualTo(RejectionReason.ADMISSION_FULL);
    }

    @Test
    void placesTheLenderUsesAreNotLent() throws Exception {
        hold(lender, 1);
        hold(borrower, 2);

        assertThat(refusal(borrower)).isEqualTo(RejectionReason.BORROW_REFUSED);
        assertThat(lender.active() + borrower.active()).as("never more than the B of both").isEqualTo(3);
    }

    @Test
    void aLenderBelowItsBTakesItsBorrowedPlaceBackBeforeAnyBorrower() throws Exception {
        AdmissionGate batch = new AdmissionGate("batch", GateConfig.builder().maxConcurrent(1)
                .lending(GateLending.of(pool, 1, false)).build());
        hold(borrower, 2);
        hold(batch, 2);
        assertThat(pool.inUse()).as("both of the lender's places borrowed").isEqualTo(2);
        QueuedCaller owner = QueuedCaller.start("owner", lender, served);
        callers.add(owner);
        awaitReclaiming();
        assertThat(owner.decided()).as("its place is borrowed: it waits, it is not refused").isFalse();

        callers.remove(1).leave();
        assertThat(refusal(borrower)).as("the place given back is the owner's, not another borrower's")
                .isEqualTo(RejectionReason.BORROW_REFUSED);

        assertThat(owner.outcome()).isEqualTo("admitted");
        assertThat(lender.active() + borrower.active() + batch.active()).as("never above the B of the three")
                .isEqualTo(4);
        assertThat(refusal(borrower)).isEqualTo(RejectionReason.BORROW_REFUSED);
    }

    @Test
    void aQueuedOperationOfABorrowerRunsOnTheFirstPlaceALenderFrees() throws Exception {
        AdmissionGate queuing = queuingBorrower("queuing", 1, 2);
        hold(lender, 2);
        hold(queuing, 1);
        QueuedCaller queued = queue(queuing, 1).get(0);
        assertThat(queued.decided()).as("no place free: its own B runs and the lender uses all of its").isFalse();

        callers.remove(0).leave();

        assertThat(queued.outcome()).as("the lender's freed place, while its own operation still runs")
                .isEqualTo("admitted");
        assertThat(queuing.borrowed()).isEqualTo(1);
        assertThat(queuing.active()).isEqualTo(2);
        assertThat(pool.inUse()).as("the lender's running operation and the lent place").isEqualTo(2);
    }

    @Test
    void aLendersOwnQueuedOperationTakesItsFreedPlaceBeforeAQueuedBorrower() throws Exception {
        AdmissionGate queuingLender = new AdmissionGate("own", GateConfig.builder().maxConcurrent(1).maxQueued(1)
                .queueWait(Duration.ofHours(1)).lending(GateLending.of(pool, 0, true)).build());
        AdmissionGate queuing = queuingBorrower("queuing", 1, 3);
        hold(lender, 2);
        hold(queuingLender, 1);
        hold(queuing, 1);
        QueuedCaller own = queue(queuingLender, 1).get(0);
        QueuedCaller borrowing = queue(queuing, 1).get(0);

        callers.remove(2).leave();

        assertThat(own.outcome()).isEqualTo("admitted");
        assertThat(queuing.borrowed()).as("the place went on with the lender's execution permit").isZero();
        assertThat(borrowing.decided()).isFalse();
        assertThat(pool.reclaiming()).isFalse();
    }

    @Test
    void aLoneQueuingBorrowerTakesEveryPlaceTheLendersFreeUpToItsCeiling() throws Exception {
        LendingPool wide = new LendingPool("wide");
        AdmissionGate wideLender = lenderOf(wide, 4);
        AdmissionGate idle = queuingBorrower(wide, "idle", 8, 4);
        AdmissionGate busy = queuingBorrower(wide, "busy", 1, 3);
        hold(wideLender, 4);
        hold(busy, 1);
        queue(busy, 4);

        endFirstCallers(4);

        assertThat(busy.borrowed()).as("every freed place, up to its ceiling, though the other weighs more")
                .isEqualTo(3);
        assertThat(idle.borrowed()).isZero();
        assertThat(wide.inUse()).as("one place left free: nobody below its ceiling has work queued").isEqualTo(3);
        assertThat(busy.waiting()).isEqualTo(1);
    }

    @Test
    void borrowersThatAllQueueBorrowInProportionToTheirB() throws Exception {
        LendingPool wide = new LendingPool("wide");
        AdmissionGate wideLender = lenderOf(wide, 8);
        AdmissionGate small = queuingBorrower(wide, "small", 1, 8);
        AdmissionGate large = queuingBorrower(wide, "large", 3, 8);
        hold(wideLender, 8);
        hold(small, 1);
        hold(large, 3);
        queue(small, 8);
        queue(large, 8);

        endFirstCallers(8);

        assertThat(small.borrowed()).as("a quarter of the 8 lent places: B = 1 of 4").isEqualTo(2);
        assertThat(large.borrowed()).as("three quarters: B = 3 of 4").isEqualTo(6);
        assertThat(wide.inUse()).isEqualTo(8);
    }

    @Test
    void aLenderWaitingForItsPlaceTakesTheOneAGrowMakes() throws Exception {
        hold(borrower, 3);
        QueuedCaller owner = QueuedCaller.start("owner", lender, served);
        callers.add(owner);
        awaitReclaiming();

        lender.resizeConcurrent(3);

        assertThat(owner.outcome()).as("no borrowed place ended, a grow made one").isEqualTo("admitted");
    }

    @Test
    void aLenderInterruptedWhileWaitingForItsPlaceGivesBackEverythingItTook() throws Exception {
        hold(borrower, 3);
        QueuedCaller owner = QueuedCaller.start("owner", lender, served);
        awaitReclaiming();

        owner.thread().interrupt();

        assertThat(owner.outcome()).isEqualTo("INTERRUPTED interrupted");
        owner.leave();
        assertThat(lender.active()).isZero();
        assertThat(pool.reclaiming()).isFalse();
        assertThat(pool.inUse()).as("the borrowed places only").isEqualTo(2);
    }

    @Test
    void aSaturatedBorrowerBorrowsNothing() {
        try (GateSaturation full = borrower.saturate()) {
            assertThat(refusal(borrower)).isEqualTo(RejectionReason.ADMISSION_FULL);
            assertThat(pool.inUse()).isZero();
        }
        assertThat(borrower.borrowed()).isZero();
    }

    @Test
    void whatIsLentFollowsTheBInForce() throws Exception {
        lender.resizeConcurrent(1);
        hold(borrower, 2);

        assertThat(refusal(borrower)).as("one place left to lend after the shrink").isEqualTo(RejectionReason.BORROW_REFUSED);
        lender.resizeConcurrent(3);
        hold(borrower, 1);
        assertThat(pool.capacity()).isEqualTo(3);
    }

    @Test
    void aWorkloadWithRulesBorrowsAndLendsAsOneWithout() throws Exception {
        AdmissionRules rules = AdmissionRules.builder().criticalReserve(0.5).fairShares(true).build();
        AdmissionGate ruledLender = new AdmissionGate("checkout", GateConfig.builder().maxConcurrent(1).maxQueued(0)
                .admissionRules(rules).lending(GateLending.of(pool, 0, true)).build());
        AdmissionGate ruledBorrower = new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(1).maxQueued(0)
                .admissionRules(rules).lending(GateLending.of(pool, 2, false)).build());

        hold(ruledBorrower, 3);
        assertThat(ruledBorrower.borrowed()).as("the idle places of both lenders, up to its ceiling").isEqualTo(2);
        assertThat(pool.inUse()).isEqualTo(2);
        assertThat(pool.capacity()).isEqualTo(3);

        hold(ruledLender, 1);
        assertThat(refusal(ruledLender)).as("its own B taken, nothing else to wait for in a gate of Q = 0")
                .isEqualTo(RejectionReason.ADMISSION_FULL);
        assertThat(lender.active() + ruledLender.active() + ruledBorrower.active() - ruledBorrower.borrowed())
                .as("the lenders' own operations and the borrower's own").isEqualTo(2);
        assertThat(pool.inUse()).as("never more ledger places than the lenders' B").isEqualTo(3);
    }

    @Test
    void aLendersWaitForItsLedgerPlaceIsReportedAsQueueWaitNotAsHoldTime() throws Exception {
        LendingPool ownPool = new LendingPool("timed");
        WaitsAndHolds heard = new WaitsAndHolds();
        AdmissionGate timedLender = new AdmissionGate("owner", GateConfig.builder().maxConcurrent(1)
                .lending(GateLending.of(ownPool, 0, true)).build(), heard);
        AdmissionGate ownBorrower = new AdmissionGate("borrower", GateConfig.builder().maxConcurrent(1)
                .lending(GateLending.of(ownPool, 1, false)).build());
        AdmissionGate elsewhere = new AdmissionGate("elsewhere", GateConfig.defaults(), heard);
        hold(ownBorrower, 2);
        QueuedCaller owner = QueuedCaller.start("owner", timedLender, served);
        callers.add(owner);
        awaitReclaiming(ownPool);

        // Admitted and released while the owner waits for its ledger place: its whole hold lies inside that wait.
        hold(elsewhere, 1);
        callers.remove(callers.size() - 1).leave();
        callers.remove(1).leave();

        assertThat(owner.outcome()).isEqualTo("admitted");
        owner.leave();
        assertThat(heard.admittedWait("owner")).as("the wait for the borrowed place to come back is queue wait")
                .isGreaterThanOrEqualTo(heard.held("elsewhere"));
        assertThat(ownPool.inUse()).as("the borrower's own place holds no ledger place").isZero();
    }

    @Test
    void aBorrowCeilingOutsideItsRangeIsRefused() {
        assertThatThrownBy(() -> GateLending.of(pool, -1, true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("borrow must be between 0 and 1000000, was -1");
    }

    private void hold(AdmissionGate gate, int operations) throws Exception {
        for (int i = 0; i < operations; i++) {
            QueuedCaller caller = QueuedCaller.start(gate.workload() + "-" + callers.size(), gate, served);
            callers.add(caller);
            assertThat(caller.outcome()).as(caller + " admitted").isEqualTo("admitted");
        }
    }

    /** A gate of B = {@code maxConcurrent} that lends to {@code lendingPool} and borrows nothing. */
    private static AdmissionGate lenderOf(LendingPool lendingPool, int maxConcurrent) {
        return new AdmissionGate("orders", GateConfig.builder().maxConcurrent(maxConcurrent)
                .lending(GateLending.of(lendingPool, 0, true)).build());
    }

    /** Ends the operations of the first {@code operations} callers started, one after the other. */
    private void endFirstCallers(int operations) throws InterruptedException {
        for (int ended = 0; ended < operations; ended++) {
            callers.remove(0).leave();
        }
    }

    /** A borrower of {@link #pool} that queues up to 16 operations for an hour. */
    private AdmissionGate queuingBorrower(String workload, int maxConcurrent, int borrow) {
        return queuingBorrower(pool, workload, maxConcurrent, borrow);
    }

    private static AdmissionGate queuingBorrower(LendingPool lendingPool, String workload, int maxConcurrent,
                                                 int borrow) {
        return new AdmissionGate(workload, GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(16)
                .queueWait(Duration.ofHours(1)).lending(GateLending.of(lendingPool, borrow, false)).build());
    }

    /** Starts {@code operations} callers of {@code gate} and returns them once each is queued, in their order. */
    private List<QueuedCaller> queue(AdmissionGate gate, int operations) {
        List<QueuedCaller> queued = new ArrayList<>();
        for (int i = 0; i < operations; i++) {
            int queuedBefore = gate.queueLength();
            QueuedCaller caller = QueuedCaller.start(gate.workload() + "-" + callers.size(), gate, served);
            callers.add(caller);
            queued.add(caller);
            while (gate.queueLength() == queuedBefore) {
                Thread.onSpinWait();
            }
        }
        return queued;
    }

    /** Returns once an owner waits for a borrowed place to come back. */
    private void awaitReclaiming() {
        awaitReclaiming(pool);
    }

    private static void awaitReclaiming(LendingPool lending) {
        while (!lending.reclaiming()) {
            Thread.onSpinWait();
        }
    }

    /** How the test thread, holding nothing, is refused by {@code gate}. */
    private static RejectionReason refusal(AdmissionGate gate) {
        try (Permit admitted = gate.acquire()) {
            throw new AssertionError("admitted by " + gate + " as " + admitted);
        } catch (BulkheadRejectedException refused) {
            return refused.reason();
        }
    }

    /** What a listener heard: each workload's last reported queue wait on admission, and hold time on release. */
    private static final class WaitsAndHolds implements GateListener {

        private final Map<String, Long> waits = new ConcurrentHashMap<>();
        private final Map<String, Long> holds = new ConcurrentHashMap<>();

        @Override
        public void onAdmitted(String workload, long queueWaitNanos) {
            waits.put(workload, queueWaitNanos);
        }

        @Override
        public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
            holds.put(workload, heldNanos);
        }

        long admittedWait(String workload) {
            return waits.get(workload);
        }

        long held(String workload) {
            return holds.get(workload);
        }
    }
}
