package dev.dbbulkhead.gate;

import static dev.dbbulkhead.gate.GateModelSteps.check;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of lending between workloads with admission rules (fair shares, requests in progress
 * first): a lender of B = 1 and a borrower of B = 1 and Q = 1 that may borrow 1, on one pool's ledger, under every interleaving the model checker explores, with operations of both, an observer, and resizes of
 * the lender to B = 1 or 2 (as an operator, the adaptive limit or a fleet share would: what is lent follows the B in
 * force). The borrower's queued operation runs on whichever frees first: its own place, or a lent one handed to it by
 * the lender's release, a borrowed operation's end or a grow.
 *
 * <p>What is checked:
 * <ul>
 *   <li>the running operations of both gates never exceed the sum of their B — the lender's largest B of the run
 *       (a ghost counted between admission and release, so never above the real number) — and the borrower never runs more than its B and its ceiling;</li>
 *   <li>the lender below its own B is never refused: it has no queue, so its only refusal is a full gate
 *       ({@code ADMISSION_FULL}) — which needs its own operation inside — and never a borrow's reason or a timeout; it
 *       waits for a borrowed place instead;</li>
 *   <li>the borrower is refused only for a full gate or a refused borrow, each permit is released once, and at the
 *       end every place is back: both gates idle and the ledger at 0.</li>
 * </ul>
 */
@Param(name = "lenderB", gen = IntGen.class, conf = "1:2")
@Timeout(value = 15, unit = TimeUnit.MINUTES) // only against a hang of the harness; Lincheck reports a blocked model thread itself
public class AdmissionGateLendingModelCheckTests {

    private static final int LENDER_B = 1;
    /** The largest B a resize gives the lender. */
    private static final int LENDER_MOST_B = 2;
    private static final int BORROWER_B = 1;
    private static final int BORROW = 1;

    private final LendingPool pool = new LendingPool("model");
    /** Rules on both sides: lending and the scheduler's order in one workload. */
    private static final AdmissionRules RULES = AdmissionRules.builder().fairShares(true).inProgressFirst(true).build();

    private final AdmissionGate lender = new AdmissionGate("lender", GateConfig.builder().maxConcurrent(LENDER_B)
            .queueWait(Duration.ofHours(1)).admissionRules(RULES).lending(GateLending.of(pool, 0, true)).build());
    private final AdmissionGate borrower = new AdmissionGate("borrower", GateConfig.builder()
            .maxConcurrent(BORROWER_B).maxQueued(1).queueWait(Duration.ofHours(1)).admissionRules(RULES)
            .lending(GateLending.of(pool, BORROW, false)).build());
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger lenderInside = new AtomicInteger();
    private final AtomicInteger borrowerRunning = new AtomicInteger();

    @Operation
    public void enterLender() {
        int insideBefore = lenderInside.getAndIncrement();
        try {
            Permit permit;
            try {
                permit = lender.acquire();
            } catch (BulkheadRejectedException refused) {
                check(refused.reason() == RejectionReason.ADMISSION_FULL,
                        "the lender refused as " + refused.reason());
                check(insideBefore + lenderInside.get() - 1 >= LENDER_B,
                        "the lender refused with none of its own operations inside");
                return;
            }
            runAndRelease(permit, null);
        } finally {
            lenderInside.decrementAndGet();
        }
    }

    @Operation
    public void enterBorrower() {
        Permit permit;
        try {
            permit = borrower.acquire();
        } catch (BulkheadRejectedException refused) {
            check(refused.reason() == RejectionReason.ADMISSION_FULL
                    || refused.reason() == RejectionReason.BORROW_REFUSED, "the borrower refused as " + refused.reason());
            return;
        }
        runAndRelease(permit, borrowerRunning);
    }

    /** Resizes the lender: a waiting owner must take a place a grow makes, and nothing may pass a shrink. */
    @Operation(nonParallelGroup = "resize")
    public void resizeLender(@Param(name = "lenderB") int maxConcurrent) {
        lender.resizeConcurrent(maxConcurrent);
    }

    /** The figures a gauge reads at any moment. */
    @Operation
    public void observe() {
        long inUse = pool.inUse();
        check(inUse >= 0 && inUse <= LENDER_MOST_B, "ledger at " + inUse + " of " + LENDER_MOST_B);
        check(borrower.borrowed() >= 0 && borrower.borrowed() <= BORROW, "borrowed() = " + borrower.borrowed());
        check(borrower.active() <= BORROWER_B + BORROW, "borrower active() = " + borrower.active());
    }

    private void runAndRelease(Permit permit, @Nullable AtomicInteger gateRunning) {
        GateModelSteps.runThenCloseTwice(permit, () -> {
            int runningNow = running.incrementAndGet();
            check(runningNow <= LENDER_MOST_B + BORROWER_B, "running " + runningNow + " > the sum of B");
            if (gateRunning != null) {
                int gateNow = gateRunning.incrementAndGet();
                check(gateNow <= BORROWER_B + BORROW, "borrower running " + gateNow + " > its B and ceiling");
                gateRunning.decrementAndGet();
            }
            running.decrementAndGet();
        });
    }

    @Validate
    public void everyPlaceIsBack() {
        GateModelSteps.checkIdle(lender);
        GateModelSteps.checkIdle(borrower);
        check(pool.inUse() == 0, "ledger still at " + pool.inUse());
        check(borrower.borrowed() == 0, "borrowed places left: " + borrower.borrowed());
        check(!pool.reclaiming(), "an owner still waits");
    }

    @Test
    @DisplayName("model checking: lending keeps the sum of B over a pool's gates, never refuses a lender below its B, refuses borrowers only as full or borrow-refused, and leaks no place, under all explored interleavings")
    void modelCheck() {
        GateModelSteps.modelCheck(AdmissionGateLendingModelCheckTests.class, 0, 1);
    }
}
