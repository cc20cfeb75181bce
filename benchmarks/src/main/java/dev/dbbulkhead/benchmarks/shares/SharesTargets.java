package dev.dbbulkhead.benchmarks.shares;

import dev.dbbulkhead.benchmarks.lending.LendingScenario;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.percent;

import dev.dbbulkhead.benchmarks.lending.LendingScenario;
import dev.dbbulkhead.gate.Criticality;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The targets of the benchmark of tenants, criticality and lending, each judged from one run. */
final class SharesTargets {

    static final double KEPT_GOODPUT_TARGET = 0.95;
    static final double JAIN_TARGET = 0.95;
    /** "Flat": the heap after a full GC grows by less than this over the flood, and the flows remembered not at all. */
    static final long HEAP_GROWTH_LIMIT_BYTES = 2L * 1024 * 1024;
    /** "Not growing": the flood's second half costs per call at most this × its first half. */
    static final double COST_GROWTH_LIMIT = 1.2;
    static final double CRITICAL_SUCCESS_TARGET = 0.99;

    private SharesTargets() {
    }

    static List<Verdict> judge(SharesRun.Result result) {
        List<Verdict> verdicts = new ArrayList<>();
        verdicts.addAll(lending(result.lending()));
        verdicts.addAll(tenants(result.tenants().runs()));
        verdicts.addAll(flood(result.flood()));
        verdicts.addAll(criticality(result.criticality()));
        verdicts.add(fastPath(result.fastPath()));
        return verdicts;
    }

    /** The lending scenario's targets, judged on the ratios of its two runs (see {@link SharesLending}). */
    static List<Verdict> lending(SharesLending.Result measured) {
        String borrower = "lending: the borrower's goodput while the owner is idle ≥ "
                + LendingScenario.GOODPUT_TARGET + " × without lending";
        String owner = "lending: when the owner returns, its p99 within " + LendingScenario.P99_TARGET
                + " × of the no-lending run within one second";
        return List.of(
                new Verdict(borrower, number(measured.borrowerGoodputRatio(), 2) + " ×",
                        Verdict.State.of(measured.borrowerGoodputRatio() >= LendingScenario.GOODPUT_TARGET)),
                new Verdict(owner, number(measured.ownerP99Ratio(), 2) + " × (p99 from one second after its return)",
                        Verdict.State.of(measured.ownerP99Ratio() <= LendingScenario.P99_TARGET)));
    }

    static List<Verdict> tenants(List<TenantRun> runs) {
        TenantRun quiet = run(runs, TenantGuard.FAIR_SHARES, false);
        TenantRun noisy = run(runs, TenantGuard.FAIR_SHARES, true);
        double leastKept = Fairness.leastKept(quiet, noisy);
        double jain = Fairness.jainOfEqualTenants(noisy);
        return List.of(
                new Verdict("tenants: with a tenant offering " + TenantsScenario.NOISY_FACTOR + " × the others' load,"
                        + " each of the nine keeps ≥ " + percent(KEPT_GOODPUT_TARGET) + " of its goodput without it"
                        + " (fair shares)", "the one that lost most kept " + percent(leastKept) + "; the nine together "
                        + percent(Fairness.keptTogether(quiet, noisy)),
                        Verdict.State.of(leastKept >= KEPT_GOODPUT_TARGET)),
                new Verdict("tenants: Jain's fairness index over the admitted operations of the tenants offering equal"
                        + " load ≥ " + JAIN_TARGET + " (fair shares, noisy neighbour on)", number(jain, 4),
                        Verdict.State.of(jain >= JAIN_TARGET)));
    }

    static List<Verdict> flood(KeyFlood.Result flood) {
        boolean flat = flood.heapGrowth() < HEAP_GROWTH_LIMIT_BYTES && flood.flowsAfter() == flood.flowsBefore();
        return List.of(
                new Verdict("tenants: memory of the gate flat under " + number(flood.keys(), 0) + " distinct keys"
                        + " (heap after a full GC grows < " + HEAP_GROWTH_LIMIT_BYTES / (1024 * 1024)
                        + " MiB, the flows remembered not at all)", "heap " + mebibytes(flood.heapUsedBefore()) + " → "
                        + mebibytes(flood.heapUsedAfter()) + " (" + signedKibibytes(flood.heapGrowth())
                        + "); flows remembered " + flood.flowsBefore() + " → " + flood.flowsAfter(),
                        Verdict.State.of(flat)),
                new Verdict("tenants: the admission cost per call does not grow with the keys seen (the median chunk"
                        + " of the flood's second half ≤ " + COST_GROWTH_LIMIT + " × the first half's)",
                        number(flood.costGrowth(), 3) + " × ("
                        + number(flood.nanosPerCall()[0], 0) + " ns/call in the first tenth, "
                        + number(flood.nanosPerCall()[flood.nanosPerCall().length - 1], 0) + " in the last)",
                        Verdict.State.of(flood.costGrowth() <= COST_GROWTH_LIMIT)));
    }

    static List<Verdict> criticality(CriticalityScenario.Result result) {
        CriticalityRun withRules = result.runs().stream().filter(CriticalityRun::rulesOn).findFirst().orElseThrow();
        double critical = withRules.of(Criticality.CRITICAL).success();
        double normal = withRules.of(Criticality.DEFAULT).success();
        double sheddable = withRules.of(Criticality.SHEDDABLE).success();
        return List.of(
                new Verdict("criticality: " + CriticalityScenario.OVERLOAD_FACTOR + "× overload, a third critical:"
                        + " critical success ≥ " + percent(CRITICAL_SUCCESS_TARGET), percent(critical),
                        Verdict.State.of(critical >= CRITICAL_SUCCESS_TARGET)),
                new Verdict("criticality: the overload absorbed by sheddable work (sheddable success ≤ default"
                        + " success < critical success)", "critical " + percent(critical) + ", default "
                        + percent(normal) + ", sheddable " + percent(sheddable),
                        Verdict.State.of(sheddable <= normal && normal < critical)));
    }

    static Verdict fastPath(Optional<FastPathComparison.Result> fastPath) {
        String target = "fast path of a workload using none of the rules unchanged (gate-cost JMH, this build vs the"
                + " build before the rules, same session: no benchmark slower by more than the two errors together)";
        if (fastPath.isEmpty()) {
            return new Verdict(target, "not run: no `--before` jar given", Verdict.State.NOT_RUN);
        }
        boolean unchanged = true;
        List<String> ratios = new ArrayList<>();
        for (FastPathComparison.Row row : fastPath.get().rows()) {
            unchanged &= row.after().mean() <= row.before().mean() + row.after().error() + row.before().error();
            ratios.add(row.benchmark() + " " + number(row.ratio(), 3) + " ×");
        }
        return new Verdict(target, "after / before: " + String.join("; ", ratios), Verdict.State.of(unchanged));
    }

    static TenantRun run(List<TenantRun> runs, TenantGuard guard, boolean noisy) {
        return runs.stream().filter(run -> run.guard() == guard && run.noisy() == noisy).findFirst().orElseThrow();
    }

    private static String mebibytes(long bytes) {
        return number(bytes / (1024.0 * 1024), 1) + " MiB";
    }

    private static String signedKibibytes(long bytes) {
        return (bytes >= 0 ? "+" : "") + number(bytes / 1024.0, 0) + " KiB";
    }
}
