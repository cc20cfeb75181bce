package dev.dbbulkhead.benchmarks.scheduler;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.percent;

import dev.dbbulkhead.benchmarks.lending.BorrowersScenario;
import dev.dbbulkhead.benchmarks.lending.LendingRun;
import dev.dbbulkhead.benchmarks.lending.LendingScenario;
import dev.dbbulkhead.gate.Criticality;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Judges every target of the scheduler run. */
final class SchedulerTargets {

    static final double QUIET_TARGET = 0.95;
    static final double BUSY_TARGET = 0.95;
    static final double ROOM_GOODPUT_TARGET = 0.98;
    /** Tenants whose keys collide in a hashed table may be this far below the others, in success, by chance only. */
    static final double HASH_GAP_TARGET = 0.02;
    /** The keyless flow may commit this many times a keyed tenant's mean, by chance only. */
    static final double KEYLESS_TARGET = 1.1;
    static final double CRITICAL_TARGET = 0.99;
    static final double REQUESTS_TARGET = 2.0;

    private SchedulerTargets() {
    }

    static List<Target> judge(SchedulerRun.Result result) {
        List<Target> targets = new ArrayList<>();
        GateCase.Result noisy = result.noisy();
        GateCase.StreamResult leastQuiet = quiet(noisy).stream()
                .min(Comparator.comparingDouble(GateCase.StreamResult::success)).orElseThrow();
        targets.add(new Target("a. 10 tenants, one offering 10 × the others, 3 × capacity: every quiet tenant ≥ 95 %",
                "least " + leastQuiet.name() + " " + percent(leastQuiet.success()) + ", most "
                        + percent(quiet(noisy).stream().mapToDouble(GateCase.StreamResult::success).max().orElseThrow())
                        + " (without rules: least " + percent(quiet(result.noisyNoRules()).stream()
                        .mapToDouble(GateCase.StreamResult::success).min().orElseThrow()) + ")",
                Target.State.of(leastQuiet.success() >= QUIET_TARGET)));
        targets.add(new Target("a. the workload's places busy ≥ 95 % of the time",
                percent(noisy.busy()) + " of B taken on average; all B taken at " + percent(noisy.allTaken())
                        + " of samples", Target.State.of(noisy.busy() >= BUSY_TARGET)));
        targets.add(new Target("a. no `OVER_FAIR_SHARE` while a place is free",
                noisy.overFairShareWhileFree() + " of " + noisy.overFairShare()
                        + " `OVER_FAIR_SHARE` refusals met while fewer than B ran and nobody waited",
                Target.State.of(noisy.overFairShareWhileFree() == 0)));
        for (GateCase.Result two : List.of(result.twoTenants32(), result.twoTenantsHowTo())) {
            GateCase.StreamResult quiet = two.stream("quiet");
            targets.add(new Target("b. two tenants, B = " + two.budget().maxConcurrent() + ", Q = "
                    + two.budget().maxQueued() + ", one noisy: the quiet tenant ≥ 95 %",
                    percent(quiet.success()) + " (" + refusals(quiet) + "); noisy " + percent(two.stream("noisy")
                            .success()), Target.State.of(quiet.success() >= QUIET_TARGET)));
        }
        double roomRatio = result.roomShares().goodput() / result.roomNoRules().goodput();
        targets.add(new Target("c. 1.1 × capacity, 10 equal tenants: goodput with fair shares ≥ 98 % of without",
                number(result.roomShares().goodput(), 0) + " against " + number(result.roomNoRules().goodput(), 0)
                        + " commits/s: " + percent(roomRatio), Target.State.of(roomRatio >= ROOM_GOODPUT_TARGET)));
        double colliding = meanSuccess(result.roomShares(), result.roomKeys(), true);
        double apart = meanSuccess(result.roomShares(), result.roomKeys(), false);
        targets.add(new Target("c. no two tenants treated differently because of their keys' hashes",
                "the " + 2 * SchedulerRun.COLLIDING_PAIRS + " tenants sharing a hashed slot " + percent(colliding)
                        + ", the others " + percent(apart) + "; least " + percent(minSuccess(result.roomShares()))
                        + ", most " + percent(maxSuccess(result.roomShares())) + " (without rules "
                        + percent(minSuccess(result.roomNoRules())) + "–" + percent(maxSuccess(result.roomNoRules()))
                        + ")", Target.State.of(colliding >= apart - HASH_GAP_TARGET)));
        int keyless = result.keyless().streams().stream().filter(s -> s.name().startsWith("keyless-"))
                .mapToInt(GateCase.StreamResult::committed).sum();
        double keyed = result.keyless().streams().stream().filter(s -> s.name().startsWith("tenant-"))
                .mapToInt(GateCase.StreamResult::committed).average().orElseThrow();
        targets.add(new Target("d. clients that omit their key gain no more than one flow's share",
                SchedulerRun.KEYLESS_CLIENTS + " keyless clients together " + keyless + " commits, a keyed tenant "
                        + number(keyed, 0) + " on average: " + number(keyless / keyed, 2) + " ×",
                Target.State.of(keyless <= KEYLESS_TARGET * keyed)));
        for (GateCase.Result criticality : List.of(result.criticalityLarge(), result.criticalitySmall())) {
            GateCase.StreamResult critical = criticality.stream(Criticality.CRITICAL.name());
            targets.add(new Target("e. 3 × overload, a third critical, sheddable work first (critical reserve "
                    + criticality.rules().criticalReserve() + ", sheddable " + criticality.rules().sheddableReserve()
                    + "): critical success ≥ 99 %",
                    percent(critical.success()) + " (default " + percent(criticality.stream(Criticality.DEFAULT.name())
                            .success()) + ", sheddable " + percent(criticality.stream(Criticality.SHEDDABLE.name())
                            .success()) + ")", Target.State.of(critical.success() >= CRITICAL_TARGET)));
        }
        SchedulerRun.RequestsResult fifo = result.requestsFifo();
        SchedulerRun.RequestsResult first = result.requestsInProgressFirst();
        double requestsRatio = first.completeShare() / fifo.completeShare();
        targets.add(new Target("f. three-operation requests, 3 × overload: whole requests with `inProgressFirst`"
                + " ≥ 2 × the FIFO gate's",
                percent(first.completeShare()) + " against " + percent(fifo.completeShare()) + ": "
                        + number(requestsRatio, 2) + " ×", Target.State.of(requestsRatio >= REQUESTS_TARGET)));
        targets.add(new Target("f. no more refused operations in total",
                first.operationsRefused() + " against " + fifo.operationsRefused() + " (operations committed "
                        + first.operationsCommitted() + " against " + fifo.operationsCommitted() + ")",
                Target.State.of(first.operationsRefused() <= fifo.operationsRefused())));
        if (result.lendingWithRules().refusedBecause() != null) {
            targets.add(new Target("g. lending with fair shares on the borrower: the lending targets still met",
                    "the build refused lending with rules in one workload: \"" + firstClause(result
                            .lendingWithRules().refusedBecause()) + "\"", Target.State.NOT_SUPPORTED));
        } else {
            lending(targets, "g. with fair shares on the borrower", result.lendingWithRules().detail());
        }
        lending(targets, "g. (reference) without rules", result.lendingWithoutRules());
        borrowers(targets, result.borrowers());
        return targets;
    }

    /** Two borrowers that both queue beside an idle lender: the lent places used, split by B, Σ B kept. */
    private static void borrowers(List<Target> targets, BorrowersScenario.Result borrowers) {
        BorrowersScenario.Run with = borrowers.with();
        double ratio = borrowers.goodputRatio();
        targets.add(new Target("h. two borrowers queuing beside an idle lender: their goodput with lending ≥ "
                + number(BorrowersScenario.GOODPUT_TARGET, 1) + " × without",
                number(with.reportsPerSecond() + with.exportsPerSecond(), 0) + " against "
                        + number(borrowers.without().reportsPerSecond() + borrowers.without().exportsPerSecond(), 0)
                        + " commits/s: " + number(ratio, 2) + " ×",
                Target.State.of(ratio >= BorrowersScenario.GOODPUT_TARGET)));
        double share = with.reportsShare();
        targets.add(new Target("h. the lent places split by B (1 and 3): `reports`' share of the borrowers' commits "
                + percent(BorrowersScenario.REPORTS_SHARE) + " ± " + number(100 * BorrowersScenario.SHARE_TOLERANCE, 0)
                + " points", percent(share) + " (without lending " + percent(borrowers.without().reportsShare()) + ")",
                Target.State.of(Math.abs(share - BorrowersScenario.REPORTS_SHARE)
                        <= BorrowersScenario.SHARE_TOLERANCE)));
        targets.add(new Target("h. busy sessions on the server never above Σ B = " + BorrowersScenario.SUM_B,
                "peak " + with.serverPeak() + " in " + with.samples() + " samples",
                Target.State.of(with.serverPeak() <= BorrowersScenario.SUM_B)));
    }

    private static void lending(List<Target> targets, String label, LendingScenario.Result detail) {
        LendingRun without = detail.without();
        LendingRun with = detail.with();
        double goodput = with.reportsGoodputAlone() / without.reportsGoodputAlone();
        double p99 = with.ordersAfterSettling().p99() / without.ordersAfterSettling().p99();
        int sumB = LendingScenario.ORDERS_B + LendingScenario.REPORTS_B;
        targets.add(new Target(label + ": the borrower's goodput while the owner is idle ≥ 1.8 × without lending",
                number(goodput, 2) + " ×", Target.State.of(goodput >= LendingScenario.GOODPUT_TARGET)));
        targets.add(new Target(label + ": the returning owner's p99 from one second on ≤ 1.2 × without lending",
                number(p99, 2) + " ×", Target.State.of(p99 <= LendingScenario.P99_TARGET)));
        targets.add(new Target(label + ": busy sessions on the server never above Σ B = " + sumB,
                "peak " + with.serverPeak() + " in " + with.samples() + " samples",
                Target.State.of(with.serverPeak() <= sumB)));
    }

    /** A refusal's message up to where it lists the values it was given. */
    private static String firstClause(String message) {
        int values = message.indexOf(", was ");
        return (values < 0 ? message : message.substring(0, values)).replace("|", "\\|");
    }

    /** The nine tenants other than the noisy one. */
    static List<GateCase.StreamResult> quiet(GateCase.Result run) {
        return run.streams().stream().filter(s -> !s.name().equals(SchedulerRun.noisyTenant())).toList();
    }

    private static double meanSuccess(GateCase.Result run, List<String> keys, boolean colliding) {
        return run.streams().stream().filter(s -> HashedKeySlots.collides(s.name(), keys) == colliding)
                .mapToDouble(GateCase.StreamResult::success).average().orElse(Double.NaN);
    }

    static double minSuccess(GateCase.Result run) {
        return run.streams().stream().mapToDouble(GateCase.StreamResult::success).min().orElseThrow();
    }

    static double maxSuccess(GateCase.Result run) {
        return run.streams().stream().mapToDouble(GateCase.StreamResult::success).max().orElseThrow();
    }

    static String refusals(GateCase.StreamResult stream) {
        return stream.refusals().isEmpty() ? "no refusals" : stream.refusals().toString().replaceAll("[{}]", "");
    }
}
