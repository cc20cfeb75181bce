package dev.dbbulkhead.benchmarks.shares;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.percent;

import dev.dbbulkhead.benchmarks.load.Outcome;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import dev.dbbulkhead.gate.Criticality;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/** The section's report, shares.md: the targets first, then each part's setup and table, then the environment. */
public final class SharesReport {

    public static final String FILE = "shares.md";

    private SharesReport() {
    }

    /** Writes {@value #FILE} into {@code out}; {@code environment} is the harness's description of the machine. */
    public static void write(SharesRun.Result result, String environment, Path out) throws IOException {
        StringBuilder text = new StringBuilder("### Targets\n\n").append(targets(result)).append('\n')
                .append("### Tenants\n\n").append(tenantsSetup(result.tenants(), result.settings().window())).append("\n\n")
                .append(tenants(result)).append('\n').append(perTenant(result)).append('\n')
                .append("### A flood of distinct keys\n\n").append(floodSetup(result.flood())).append("\n\n")
                .append(flood(result.flood())).append('\n')
                .append("### Criticality\n\n").append(criticalitySetup(result)).append("\n\n")
                .append(criticality(result.criticality())).append('\n')
                .append("### Lending between workloads\n\n").append("The scenario of [lending.md](lending.md), run"
                        + " within this run: the borrower's goodput while the owner is idle, with lending over without: ")
                .append(number(result.lending().borrowerGoodputRatio(), 2)).append(" ×; the owner's p99 from one"
                        + " second after its return, with lending over without: ")
                .append(number(result.lending().ownerP99Ratio(), 2)).append(" ×.\n\n")
                .append("### Fast path of a workload without rules\n\n").append(fastPath(result)).append('\n');
        failures(result, text);
        text.append("Run from ").append(result.began()).append(" to ").append(result.ended()).append(".\n\n")
                .append(environment);
        Files.createDirectories(out);
        Files.writeString(out.resolve(FILE), text);
    }

    private static MarkdownTable targets(SharesRun.Result result) {
        MarkdownTable table = new MarkdownTable("target", "measured", "met?");
        for (Verdict verdict : result.verdicts()) {
            table.row(verdict.target(), verdict.measured(), verdict.state().label());
        }
        return table;
    }

    private static String tenantsSetup(TenantsScenario.Result tenants, Duration window) {
        return "Workload `" + TenantsScenario.WORKLOAD + "`: B = " + TenantsScenario.BUDGET.maxConcurrent() + ", Q = "
                + TenantsScenario.BUDGET.maxQueued() + ", queue wait " + TenantsScenario.BUDGET.queueWait().toMillis()
                + " ms, a pool of " + TenantsScenario.POOL_SIZE + " connections; each call runs pg_sleep("
                + TenantsScenario.HOLD.toMillis() + " ms) + a one-row UPDATE in its transaction. Its capacity,"
                + " measured before the runs with B callers back to back (after one such measurement to warm up): "
                + number(tenants.capacity(), 0) + " commits/s. " + TenantsScenario.TENANTS
                + " tenants, each its own key, offer " + number(tenants.perTenant(), 1)
                + " calls/s each (the nine together " + TenantsScenario.EQUAL_SHARE_OF_CAPACITY_PERCENT
                + " % of the capacity), steadily, open loop, for " + window.toMillis() + " ms; in the noisy run"
                + " `tenant-0` offers " + TenantsScenario.NOISY_FACTOR + " × that (" + number(TenantsScenario.NOISY_FACTOR
                * tenants.perTenant(), 0) + " calls/s), the total "
                + number((TenantsScenario.NOISY_FACTOR + TenantsScenario.TENANTS - 1) * tenants.perTenant()
                / tenants.capacity(), 2) + " × the capacity. Guards: db-bulkhead with fair"
                + " shares (`AdmissionRules.builder().fairShares(true)`, equal weights, the default 256 idle keys"
                + " remembered) and"
                + " without rules; Resilience4j, which has no tenants — one shared bulkhead cannot tell them apart"
                + " (it is the no-rules row as far as tenants go), so a semaphore bulkhead per tenant of B / "
                + TenantsScenario.TENANTS + " = " + Math.max(1, TenantsScenario.BUDGET.maxConcurrent()
                / TenantsScenario.TENANTS) + " call, waiting at most the queue wait (a static partition: nothing a"
                + " quiet tenant leaves is lent to another); concurrency-limits' partitioned limiter, a fixed limit"
                + " of B and a partition of " + percent(1.0 / TenantsScenario.TENANTS) + " per tenant (a partition"
                + " may exceed its part while the limit as a whole is not reached; no queue). Kept goodput compares"
                + " each of the nine tenants' commits in the noisy run with its commits in the quiet run of the same"
                + " guard. Before the counted runs, one run of the first guard's quiet load warms the JVM up and is not"
                + " counted.";
    }

    private static MarkdownTable tenants(SharesRun.Result result) {
        MarkdownTable table = new MarkdownTable("guard", "nine tenants' commits, quiet", "nine tenants' commits, noisy",
                "kept together", "kept, least of the nine", "kept together, against the no-rules quiet run",
                "Jain's index of the nine (noisy)", "the nine's refusals, quiet", "the nine's refusals, noisy",
                "noisy tenant's commits", "noisy tenant's refusals", "failed", "load avg (noisy)");
        TenantRun unruled = SharesTargets.run(result.tenants().runs(), TenantGuard.NO_RULES, false);
        for (TenantGuard guard : TenantsScenario.GUARDS) {
            TenantRun quiet = SharesTargets.run(result.tenants().runs(), guard, false);
            TenantRun noisy = SharesTargets.run(result.tenants().runs(), guard, true);
            StreamOutcome neighbour = noisy.tenants().getFirst();
            table.row(guard.label(), commits(quiet), commits(noisy), percent(Fairness.keptTogether(quiet, noisy)),
                    percent(Fairness.leastKept(quiet, noisy)), percent(Fairness.keptTogether(unruled, noisy)),
                    number(Fairness.jainOfEqualTenants(noisy), 4), refusalsOfTheNine(quiet), refusalsOfTheNine(noisy),
                    neighbour.committed() + " of " + neighbour.offered(), neighbour.refusalsByReason(),
                    failed(quiet) + failed(noisy), number(noisy.loadAverage(), 2));
        }
        return table;
    }

    private static Map<String, Integer> refusalsOfTheNine(TenantRun run) {
        Map<String, Integer> refusals = new TreeMap<>();
        run.equalTenants().forEach(tenant -> tenant.refusalsByReason().forEach(
                (reason, count) -> refusals.merge(reason, count, Integer::sum)));
        return refusals;
    }

    private static MarkdownTable perTenant(SharesRun.Result result) {
        MarkdownTable table = new MarkdownTable("guard / run", "tenant-0", "tenant-1 … tenant-9 (commits of offered)");
        for (TenantRun run : result.tenants().runs()) {
            StringBuilder nine = new StringBuilder();
            for (StreamOutcome tenant : run.equalTenants()) {
                nine.append(nine.isEmpty() ? "" : ", ").append(tenant.committed());
            }
            StreamOutcome first = run.tenants().getFirst();
            table.row(run.guard().label() + (run.noisy() ? ", noisy" : ", quiet"),
                    first.committed() + " / " + first.offered(),
                    nine + " of " + run.equalTenants().getFirst().offered() + " each");
        }
        return table;
    }

    private static String floodSetup(KeyFlood.Result flood) {
        return "No database: one gate with fair shares (B = 10, Q = 10, remembering the recent use of at most "
                + flood.keySlots() + " keys without waiters), "
                + KeyFlood.HOLDERS + " other keys each holding a place on a thread of its own throughout: every new key"
                + " finds a place free and never waits. One thread admits and releases an operation of a new"
                + " key each time: " + number(flood.warmUpKeys(), 0) + " keys to warm up, then "
                + number(flood.keys(), 0) + " distinct keys, timed in " + KeyFlood.CHUNKS + " equal chunks. Heap"
                + " used is read from the `MemoryMXBean` after three full GCs before and after the flood; the flows"
                + " the gate remembers are read from it. A timed loop, reported, never asserted"
                + " by a test; judged on the median chunk of each half. Admissions refused during the flood: " + flood.refused() + ".";
    }

    private static MarkdownTable flood(KeyFlood.Result flood) {
        MarkdownTable table = new MarkdownTable("chunk of " + number(flood.keys() / KeyFlood.CHUNKS, 0) + " keys",
                "ns per admit + release");
        for (int c = 0; c < flood.nanosPerCall().length; c++) {
            table.row(c + 1, number(flood.nanosPerCall()[c], 0));
        }
        return table;
    }

    private static String criticalitySetup(SharesRun.Result result) {
        CriticalityScenario.Result criticality = result.criticality();
        return "The overload scenario's workload: B = " + CriticalityScenario.BUDGET.maxConcurrent() + ", Q = "
                + CriticalityScenario.BUDGET.maxQueued() + ", queue wait "
                + CriticalityScenario.BUDGET.queueWait().toMillis() + " ms, a pool of B connections, pg_sleep(10 ms)"
                + " + a one-row UPDATE per call. Its capacity, measured first with B callers back to back: "
                + number(criticality.capacity(), 0) + " commits/s. Offered: " + CriticalityScenario.OVERLOAD_FACTOR
                + " × that, a third each critical, default and sheddable (" + number(criticality.perClass(), 0)
                + " calls/s each, steadily, interleaved, open loop) for " + result.settings().window().toMillis()
                + " ms per run. With rules: `criticalReserve(" + CriticalityScenario.CRITICAL_RESERVE
                + ")` — only critical work takes the last " + (int) (CriticalityScenario.CRITICAL_RESERVE
                * (CriticalityScenario.BUDGET.maxConcurrent() + CriticalityScenario.BUDGET.maxQueued()))
                + " of the B + Q places, so other work never waits ahead of it — and `sheddableReserve("
                + CriticalityScenario.SHEDDABLE_RESERVE + ")`. Without rules: the same gate and load,"
                + " `AdmissionRules.none()`. Neither Resilience4j nor concurrency-limits has criticalities; each"
                + " class behind a bulkhead or partition of its own would be a static partition again, so they are"
                + " not run here.";
    }

    private static MarkdownTable criticality(CriticalityScenario.Result result) {
        MarkdownTable table = new MarkdownTable("run", "criticality", "offered", "committed", "success",
                "refusals by reason", "failed", "abandoned", "load avg");
        for (CriticalityRun run : result.runs()) {
            for (Criticality criticality : Criticality.values()) {
                StreamOutcome calls = run.of(criticality);
                table.row(run.rulesOn() ? "critical reserve" : "no rules", criticality, calls.offered(),
                        calls.committed(), percent(calls.success()), calls.refusalsByReason(),
                        calls.count(Outcome.FAILED), calls.count(Outcome.ABANDONED), number(run.loadAverage(), 2));
            }
        }
        return table;
    }

    private static String fastPath(SharesRun.Result result) {
        if (result.fastPath().isEmpty()) {
            return "Not run: no `--before` jar given.\n";
        }
        FastPathComparison.Result fastPath = result.fastPath().get();
        FastPathComparison.Effort effort = fastPath.effort();
        MarkdownTable table = new MarkdownTable("benchmark (`contender=DB_BULKHEAD`)", "this build ns/op",
                "the build before the rules ns/op", "after / before");
        for (FastPathComparison.Row row : fastPath.rows()) {
            table.row(row.benchmark(), score(row.after()), score(row.before()), number(row.ratio(), 3) + " ×");
        }
        return "The gate-cost benchmarks of a workload without admission rules, from this build's jar and from the"
                + " jar of the build before the rules, each in a JVM of its own, in one session; rounds: " + effort.rounds()
                + ", each one fork per build and benchmark (the builds alternating which goes first), "
                + effort.warmups() + " × " + effort.iterationTime() + " warm-up and " + effort.measurements() + " × "
                + effort.iterationTime() + " measurement per fork; mean ns/op ± 99.9 % error over the pooled"
                + " iterations.\n\n" + table;
    }

    private static String score(FastPathComparison.Score score) {
        return number(score.mean(), 1) + " ± " + number(score.error(), 1);
    }

    private static String commits(TenantRun run) {
        return String.valueOf(run.equalTenants().stream().mapToInt(StreamOutcome::committed).sum());
    }

    private static int failed(TenantRun run) {
        return run.tenants().stream().mapToInt(tenant -> tenant.count(Outcome.FAILED)).sum();
    }

    private static void failures(SharesRun.Result result, StringBuilder text) {
        for (TenantRun run : result.tenants().runs()) {
            run.tenants().stream().filter(tenant -> tenant.firstFailure() != null).findFirst().ifPresent(tenant ->
                    text.append("First unexpected failure with ").append(run.guard().label()).append(": `")
                            .append(tenant.firstFailure()).append("`\n\n"));
        }
        for (CriticalityRun run : result.criticality().runs()) {
            run.classes().values().stream().filter(calls -> calls.firstFailure() != null).findFirst()
                    .ifPresent(calls -> text.append("First unexpected failure in the criticality run: `")
                            .append(calls.firstFailure()).append("`\n\n"));
        }
    }
}
