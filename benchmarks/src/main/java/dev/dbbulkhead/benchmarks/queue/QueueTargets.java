package dev.dbbulkhead.benchmarks.queue;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.percent;

import dev.dbbulkhead.benchmarks.overload.GuardRun;
import dev.dbbulkhead.benchmarks.overload.OverloadResult;
import dev.dbbulkhead.benchmarks.overload.TransactionGuard;
import java.util.List;

/**
 * The targets set for the CoDel queue discipline, judged from one run: nothing here is a measured figure, only
 * the bounds and how they are compared.
 */
public final class QueueTargets {

    /** Sustained: CoDel's success p99 may exceed {@code @ConcurrencyLimit} REJECT's by this factor at most. */
    static final double P99_OVER_REJECT = 1.1;
    /** Sustained: CoDel's commits within the SLO, as a share of the closed-loop ceiling, at least. */
    static final double SHARE_OF_CEILING = 0.97;
    /** Bursty: refused calls, as a share of all calls, at most. */
    static final double MAX_REFUSED_SHARE = 0.01;
    /**
     * Bursty: REJECT must refuse at least this share of calls for the scenario to show what a queue is for; five
     * times the bound the queued guards must stay within.
     */
    static final double VISIBLE_REFUSED_SHARE = 5 * MAX_REFUSED_SHARE;

    private QueueTargets() {
    }

    /**
     * One target against the run.
     *
     * @param target   what is asked, in words
     * @param measured what the run measured, with the bound it was compared with
     * @param met      whether the run meets it
     */
    public record Target(String target, String measured, boolean met) {
    }

    /** The sustained load's targets. */
    public static List<Target> sustained(OverloadResult sustained) {
        GuardRun codel = run(sustained, TransactionGuard.DB_BULKHEAD_CODEL);
        GuardRun reject = run(sustained, TransactionGuard.SPRING_REJECT);
        GuardRun fifo = run(sustained, TransactionGuard.DB_BULKHEAD);
        double p99Bound = sustainedP99Bound(sustained);
        double ceilingBound = sustained.closedLoopPerSecond() * SHARE_OF_CEILING;
        return List.of(
                new Target("CoDel success p99 ≤ " + P99_OVER_REJECT + " × REJECT's",
                        ms(codel.successes().p99()) + " against " + ms(reject.successes().p99()) + " × "
                                + P99_OVER_REJECT + " = " + ms(p99Bound) + " (fifo " + ms(fifo.successes().p99())
                                + ")",
                        codel.successes().p99() <= p99Bound),
                new Target("CoDel commits within SLO ≥ REJECT's",
                        perSecond(codel.committedWithinSloPerSecond()) + " against "
                                + perSecond(reject.committedWithinSloPerSecond()) + " (fifo "
                                + perSecond(fifo.committedWithinSloPerSecond()) + ")",
                        codel.committedWithinSloPerSecond() >= reject.committedWithinSloPerSecond()),
                new Target("CoDel commits within SLO ≥ " + percent(SHARE_OF_CEILING) + " of the closed loop",
                        perSecond(codel.committedWithinSloPerSecond()) + " = "
                                + percent(codel.committedWithinSloPerSecond() / sustained.closedLoopPerSecond())
                                + " of " + perSecond(sustained.closedLoopPerSecond()) + " (fifo "
                                + percent(fifo.committedWithinSloPerSecond() / sustained.closedLoopPerSecond()) + ")",
                        codel.committedWithinSloPerSecond() >= ceilingBound));
    }

    /** The bursty load's targets, and the check that REJECT refuses a visible share. */
    public static List<Target> bursty(OverloadResult bursty) {
        GuardRun codel = run(bursty, TransactionGuard.DB_BULKHEAD_CODEL);
        GuardRun fifo = run(bursty, TransactionGuard.DB_BULKHEAD);
        GuardRun reject = run(bursty, TransactionGuard.SPRING_REJECT);
        double costP99 = bursty.unloadedCost().p99();
        double p99Bound = burstyP99Bound(bursty);
        return List.of(
                refusedAtMost("codel", codel),
                refusedAtMost("fifo", fifo),
                new Target("REJECT refuses a visible share: ≥ " + percent(VISIBLE_REFUSED_SHARE) + " of calls",
                        percent(refusedShare(reject)) + " (" + reject.refused() + " of " + reject.offered() + ")",
                        refusedShare(reject) >= VISIBLE_REFUSED_SHARE),
                new Target("CoDel success p99 ≤ queue wait + cost p99",
                        ms(codel.successes().p99()) + " against " + bursty.budget().queueWait().toMillis()
                                + " + " + ms(costP99) + " = " + ms(p99Bound) + " (fifo "
                                + ms(fifo.successes().p99()) + ")",
                        codel.successes().p99() <= p99Bound));
    }

    /** Sustained: the most CoDel's success p99 may be, in ms: REJECT's × {@value #P99_OVER_REJECT}. */
    public static double sustainedP99Bound(OverloadResult sustained) {
        return run(sustained, TransactionGuard.SPRING_REJECT).successes().p99() * P99_OVER_REJECT;
    }

    /** Bursty: the most CoDel's success p99 may be, in ms: the queue wait + the transaction's unloaded p99. */
    public static double burstyP99Bound(OverloadResult bursty) {
        return bursty.budget().queueWait().toNanos() / 1e6 + bursty.unloadedCost().p99();
    }

    /** The refused calls' share of all calls of {@code run}. */
    public static double refusedShare(GuardRun run) {
        return run.offered() == 0 ? Double.NaN : (double) run.refused() / run.offered();
    }

    private static Target refusedAtMost(String name, GuardRun run) {
        return new Target(name + " refusals ≤ " + percent(MAX_REFUSED_SHARE) + " of calls",
                percent(refusedShare(run)) + " (" + run.refused() + " of " + run.offered() + ")",
                refusedShare(run) <= MAX_REFUSED_SHARE);
    }

    private static GuardRun run(OverloadResult result, TransactionGuard guard) {
        return result.runs().stream().filter(run -> run.guard() == guard).findFirst().orElseThrow(
                () -> new IllegalArgumentException("the run has no " + guard.label() + " to judge the targets by"));
    }

    private static String ms(double millis) {
        return number(millis, 1) + " ms";
    }

    private static String perSecond(double perSecond) {
        return number(perSecond, 0) + "/s";
    }
}
