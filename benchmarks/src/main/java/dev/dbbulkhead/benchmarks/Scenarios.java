package dev.dbbulkhead.benchmarks;

import dev.dbbulkhead.benchmarks.adaptive.AdaptiveReport;
import dev.dbbulkhead.benchmarks.adaptive.AdaptiveScenario;
import dev.dbbulkhead.benchmarks.adaptive.SaturationRun;
import dev.dbbulkhead.benchmarks.fleet.FleetSaturationRun;
import dev.dbbulkhead.benchmarks.fleet.FleetScaleRun;
import dev.dbbulkhead.benchmarks.gatecost.GateCostRun;
import dev.dbbulkhead.benchmarks.isolation.IsolationRun;
import dev.dbbulkhead.benchmarks.isolation.IsolationScenario;
import dev.dbbulkhead.benchmarks.lending.LendingReport;
import dev.dbbulkhead.benchmarks.lending.LendingScenario;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.OverloadResult;
import dev.dbbulkhead.benchmarks.overload.OverloadScenario;
import dev.dbbulkhead.benchmarks.pathcost.PathCostRun;
import dev.dbbulkhead.benchmarks.queue.QueueReport;
import dev.dbbulkhead.benchmarks.queue.QueueScenario;
import dev.dbbulkhead.benchmarks.report.Environment;
import dev.dbbulkhead.benchmarks.report.ScenarioReport;
import dev.dbbulkhead.benchmarks.retry.RetryAmplificationReport;
import dev.dbbulkhead.benchmarks.retry.RetryAmplificationScenario;
import dev.dbbulkhead.benchmarks.scheduler.SchedulerReport;
import dev.dbbulkhead.benchmarks.scheduler.SchedulerRun;
import dev.dbbulkhead.benchmarks.scheduler.TenantCornersReport;
import dev.dbbulkhead.benchmarks.scheduler.TenantCornersRun;
import dev.dbbulkhead.benchmarks.shares.SharesReport;
import dev.dbbulkhead.benchmarks.shares.SharesRun;
import dev.dbbulkhead.benchmarks.signals.SignalsCostRun;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The registry of the benchmark suite: every scenario {@code benchmarks.jar} runs, once, in the order {@code all} runs
 * them. The help, the check of a scenario's name and {@code all} all read this list, so that a scenario added here
 * is everywhere at once. Each entry only calls its scenario's own run and report.
 */
public final class Scenarios {

    /** path-cost's options, as {@link PathCostRun} reads them. */
    private static final List<String> PATH_COST_OPTIONS = List.of("--forks N", "--iteration-time 1.5s", "--before JAR",
            "--paths TRANSACTIONAL,STARTER,...", "--callers 1,8,32,v64,v512", "--warmup 5s", "--settle 1s",
            "--iterations 4");

    private Scenarios() {
    }

    /** Every scenario, in the order {@code all} runs them. */
    public static List<Scenario> registered() {
        return List.of(gateCost(), overload(), isolation(), adaptive(), queue(), pathCost(), retryAmplification(),
                lending(), shares(), scheduler(), tenantCorners(), signals(), fleetScale(), saturation(), fleetSaturation());
    }

    private static Scenario gateCost() {
        return new Scenario("gate-cost",
                "what admission costs (JMH), the gate beside the alternatives; about 18 minutes",
                List.of("uncontended admit + release no slower than Resilience4j",
                        "contended within 1.5 × the contended floor",
                        "a refusal without a stack trace by default, under 100 ns"),
                List.of(), true, run -> () -> {
                    GateCostRun.run(run.quick() ? GateCostRun.Effort.QUICK : GateCostRun.Effort.FULL, run.out());
                    written("gate cost", run.out(), "gate-cost.md");
                });
    }

    private static Scenario overload() {
        return new Scenario("overload", "10× overload on real PostgreSQL, every guard; about 1 minute",
                List.of("end-to-end refusal p99 under 1 ms",
                        "≥ 99 % of the pool's capacity committed within queue wait + cost at 10× overload",
                        "success p99 ≤ cost × (1 + Q/B) + 5 ms", "callers parked never above B + Q"),
                List.of(), true, run -> () -> {
                    OverloadResult result = OverloadScenario.run(run.settings(), OverloadScenario.GUARDS);
                    ScenarioReport.writeOverload(result, run.out());
                    written("overload", run.out(), "overload.md");
                });
    }

    private static Scenario isolation() {
        return new Scenario("isolation", "`orders` under a `reports` flood on one pool, every guard; about 1 minute",
                List.of("`orders` p99 under a `reports` flood within 10 % of its unloaded p99"),
                List.of(), true, run -> () -> {
                    List<IsolationRun> runs = IsolationScenario.run(run.settings());
                    ScenarioReport.writeIsolation(runs, run.out(), IsolationScenario.describe(run.settings()));
                    written("isolation", run.out(), "isolation.md");
                });
    }

    private static Scenario adaptive() {
        return new Scenario("adaptive",
                "the adaptive limit against fixed B and Gradient2, CPU-bound and lock-bound work; about 7 minutes",
                List.of("goodput ≥ 95 % of the best fixed B's", "success p99 ≤ 1.5 × the best fixed B's",
                        "lowers its limit within 5 s of a change, recovers within 10 s of its end",
                        "p99 during the change ≤ 2 × undisturbed", "converges at least as well as Gradient2"),
                List.of(), true, run -> () -> {
                    for (AdaptiveScenario.Work work : AdaptiveScenario.Work.values()) {
                        AdaptiveReport.write(AdaptiveScenario.run(run.quick() ? AdaptiveScenario.Timing.QUICK
                                : AdaptiveScenario.Timing.FULL, work), run.out());
                        written("adaptive limit", run.out(), work.file() + ".md");
                    }
                });
    }

    private static Scenario queue() {
        return new Scenario("queue",
                "the `fifo` and `codel` disciplines under sustained and bursty load; about 2–3 minutes",
                List.of("sustained: `codel` success p99 ≤ 1.1 × REJECT's, commits within the SLO ≥ REJECT's and"
                                + " ≥ 97 % of the closed loop",
                        "bursty: `codel` and `fifo` refuse ≤ 1 % of calls, REJECT ≥ 5 %; `codel` success p99 ≤"
                                + " queue wait + cost p99"),
                List.of(), true, run -> () -> {
                    QueueReport.write(QueueScenario.run(run.quick() ? QueueScenario.Timing.QUICK
                            : QueueScenario.Timing.FULL), run.out());
                    written("queue discipline", run.out(), "queue-sustained.md", "queue-bursty.md");
                });
    }

    private static Scenario pathCost() {
        return new Scenario("path-cost", "the whole `@DbBulkhead` path over `@Transactional` alone, in forks;"
                + " about 11 minutes, 25 with --before",
                List.of("+ meters ≤ 1.05 × `@Transactional` alone",
                        "+ meters + observations ≤ 1.10 ×, and ≤ Resilience4j",
                        "bytes a call ≤ `@Transactional` alone + 1 KB", "1 caller ≤ 1.05 × with everything on"),
                PATH_COST_OPTIONS, true, run -> {
                    PathCostRun pathCost = PathCostRun.of(run.quick(), run.options());
                    return () -> {
                        pathCost.run(run.out());
                        written("user path cost", run.out(), "path-cost.md");
                    };
                });
    }

    private static Scenario retryAmplification() {
        return new Scenario("retry-amplification", "clients that retry on 503, with and without a retry budget, over"
                + " HTTP; about 1 minute",
                List.of("with the retry budget, requests sent ≤ " + RetryAmplificationScenario.AMPLIFICATION_TARGET
                        + " × first attempts"),
                List.of(), true, run -> () -> {
                    RetryAmplificationScenario.Result result = RetryAmplificationScenario.run(run.quick()
                            ? RetryAmplificationScenario.Timing.QUICK : RetryAmplificationScenario.Timing.FULL);
                    RetryAmplificationReport.write(result, environment(), run.out());
                    written("retry amplification", run.out(), "retry-amplification.md");
                });
    }

    private static Scenario lending() {
        return new Scenario("lending", "lending between workloads alone (shares runs it too, and writes its"
                + " lending.md from that run); about 1.5 minutes",
                List.of("the borrower's goodput while the owner is idle ≥ " + LendingScenario.GOODPUT_TARGET
                                + " × without lending",
                        "the returning owner's p99 within " + LendingScenario.P99_TARGET
                                + " × of the no-lending run within one second",
                        "busy sessions on the server never above Σ B"),
                List.of(), true, run -> () -> {
                    LendingReport.write(LendingScenario.run(run.quick() ? LendingScenario.Timing.QUICK
                            : LendingScenario.Timing.FULL), environment(), run.out());
                    written("lending", run.out(), "lending.md");
                });
    }

    private static Scenario shares() {
        return new Scenario("shares", "tenants, a flood of distinct keys, criticality and lending in one run; with"
                + " --before, the fast path beside an earlier build's; about 1.5 minutes, 4 with --before",
                List.of("tenants: each of nine keeps ≥ 95 % of its goodput beside a noisy one; Jain's index ≥ 0.95",
                        "tenants: memory flat and admission cost not growing under 1,000,000 distinct keys",
                        "criticality: at 3× overload critical success ≥ 99 %, the overload absorbed by sheddable"
                                + " work",
                        "the lending targets, from the run inside it",
                        "a workload without rules: fast path no slower than the earlier build's (with --before)"),
                List.of("--before JAR"), true, run -> () -> {
                    // The lending scenario runs inside it, so that every target of the section comes from one run.
                    SharesRun.Result result = SharesRun.run(run.quick(), run.before());
                    SharesReport.write(result, environment(), run.out());
                    LendingReport.write(result.lending().detail(), environment(), run.out());
                    written("tenants, criticality and lending", run.out(), SharesReport.FILE, "lending.md");
                });
    }

    private static Scenario scheduler() {
        return new Scenario("scheduler", "one scheduler for the next place, whichever gate the build has, against the"
                + " scheduler's targets; about 3 minutes",
                List.of("10 tenants, one noisy, 3× capacity: quiet tenants ≥ 95 %, places busy ≥ 95 %, no"
                                + " OVER_FAIR_SHARE while a place is free",
                        "1.1× load: goodput with shares ≥ 98 % of without; no tenant treated differently by its"
                                + " key's hash",
                        "a client without a key gains no more than one flow's share",
                        "3× overload, sheddable work first: critical success ≥ 99 %",
                        "three-operation requests, 3× overload: whole requests ≥ 2 × FIFO, no more refusals",
                        "lending with fair shares on the borrower; two borrowers beside an idle lender"),
                List.of(), false, run -> () -> {
                    SchedulerRun.Result result = SchedulerRun.run(run.quick());
                    SchedulerReport.write(result, environment(), run.out());
                    System.out.println(SchedulerReport.targets(result));
                    written("scheduler", run.out(), SchedulerReport.FILE);
                });
    }

    private static Scenario tenantCorners() {
        return new Scenario("tenant-corners", "ten tenants, one noisy, at the corners of operation time (5–400 ms) and"
                + " queue wait (0.5–10 × the operation), the multi-tenant how-to's workload; about 10 minutes",
                List.of("10 tenants, one offering 10 × the nine others, 3× capacity, B = 8, Q = 16: every quiet"
                        + " tenant ≥ 95 % at every corner"),
                List.of(), false, run -> () -> {
                    TenantCornersRun.Result result = TenantCornersRun.run(run.quick());
                    TenantCornersReport.write(result, environment(), run.out());
                    System.out.println(TenantCornersReport.corners(result));
                    written("tenant corners", run.out(), TenantCornersReport.FILE);
                });
    }

    private static Scenario signals() {
        return new Scenario("signals", "what the database's sampler costs the server and the user path; about ten"
                + " seconds", List.of(), List.of(), false, run -> () -> {
                    SignalsCostRun.run(run.quick(), run.out());
                    written("database signals' cost", run.out(), "signals.md");
                });
    }

    private static Scenario fleetScale() {
        return new Scenario("fleet-scale", "what fleet coordination costs the database at 10, 50 and 100 members;"
                + " about 7 minutes",
                List.of("at 100 members and the default heartbeat ≤ 1 % of one server core",
                        "a fair split within two heartbeats of a join"),
                List.of(), false, run -> () -> {
                    FleetScaleRun.run(run.quick(), run.out());
                    written("fleet coordination at scale", run.out(), "fleet-scale.md");
                });
    }

    private static Scenario saturation() {
        return new Scenario("saturation", "the limit that follows the database's signals under lock contention and a"
                + " surge outside the gates, and recommend mode; about 20 minutes",
                List.of("lock contention: goodput within the SLO ≥ 0.95 × the best fixed B's",
                        "recommend mode: the B it shows lies within the best 10 % of a fixed-B sweep, and varies by"
                                + " at most ±1 over a minute of steady load",
                        "CPU saturation from outside the gates: B backs off within 2 s and recovers within 5 s"),
                List.of(), false, run -> () -> {
                    SaturationRun.run(run.quick(), run.out());
                    written("the database's signals as a limit", run.out(), "saturation-limit.md");
                });
    }

    private static Scenario fleetSaturation() {
        return new Scenario("fleet-saturation", "three instances in JVMs of their own whose total follows the"
                + " database through a surge from outside; about a minute",
                List.of("Σ running follows a lowered total within three heartbeats",
                        "the members' connections within the budget at every 50 ms sample"),
                List.of(), false, run -> () -> {
                    FleetSaturationRun.run(run.quick(), run.out());
                    written("a fleet that follows the database", run.out(), FleetSaturationRun.FILE);
                });
    }

    /** The machine and versions, for the reports that carry them. */
    static String environment() {
        return Environment.describe(BenchDatabase.serverVersion());
    }

    private static void written(String what, Path out, String... files) {
        System.out.println(what + " written to " + String.join(" and ",
                Arrays.stream(files).map(file -> out.resolve(file).toString()).toList()));
    }
}
