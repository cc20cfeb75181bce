package dev.dbbulkhead.benchmarks.shares;

import dev.dbbulkhead.benchmarks.lending.LendingRun;
import dev.dbbulkhead.benchmarks.lending.LendingScenario;

/**
 * The lending part of the shares run: {@link LendingScenario} (two workloads on one pool, the owner idle then busy,
 * without and with lending), run inside the shares run so that every target of the section comes from one run, and
 * the two ratios its targets judge.
 */
public final class SharesLending {

    private SharesLending() {
    }

    /**
     * @param borrowerGoodputRatio the borrower's goodput with lending over without, while the owner is idle
     * @param ownerP99Ratio        the owner's p99 from one second after its return, with lending over without
     * @param detail               the whole scenario, for its own report (lending.md)
     */
    public record Result(double borrowerGoodputRatio, double ownerP99Ratio, LendingScenario.Result detail) {
    }

    static Result run(boolean quick) throws Exception {
        LendingScenario.Result detail = LendingScenario.run(quick ? LendingScenario.Timing.QUICK
                : LendingScenario.Timing.FULL);
        LendingRun without = detail.without();
        LendingRun with = detail.with();
        return new Result(with.reportsGoodputAlone() / without.reportsGoodputAlone(),
                with.ordersAfterSettling().p99() / without.ordersAfterSettling().p99(), detail);
    }
}
