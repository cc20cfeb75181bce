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
import dev.dbbulkhead.benchmarks.load.ScenarioSettings;
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
import dev.dbbulkhead.benchmarks.shares.SharesReport;
import dev.dbbulkhead.benchmarks.shares.SharesRun;
import dev.dbbulkhead.benchmarks.signals.SignalsCostRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The whole benchmark suite, one command:
 * {@code java -jar benchmarks/target/benchmarks.jar
 * [all|gate-cost|overload|isolation|adaptive|queue|path-cost|retry-amplification|shares|lending|scheduler|signals
 * |fleet-scale|saturation|fleet-saturation] [--out DIR] [--quick] [path-cost options]}.
 * Writes Markdown tables and PNG charts into the output folder (default {@code docs/benchmarks}).
 * {@code --quick} shortens JMH and runs the PostgreSQL scenarios for a fraction of a second: for trying it out.
 * The options of {@code path-cost} ({@code --forks N}, {@code --iteration-time 1.5s}, {@code --before JAR},
 * {@code --paths A,B}, {@code --callers 1,8,32,v64,v512}) are described in {@link PathCostRun}. {@code shares} takes
 * {@code --before JAR} alone: the benchmarks jar of the build before the admission rules, whose gate-cost benchmarks
 * then run beside this build's ({@link SharesRun}). {@code scheduler} ({@link SchedulerRun}) is not part of {@code all}:
 * it measures whichever gate the build has against the scheduler's targets, in about three minutes. Nor is
 * {@code signals} ({@link SignalsCostRun}): what the database's sampler costs, in about ten seconds; nor
 * {@code fleet-scale} ({@link FleetScaleRun}): what fleet coordination costs the database at 10, 50 and 100 members;
 * nor {@code saturation} ({@link SaturationRun}): the limit that follows the database's signals under lock contention
 * and a surge outside the gates, and recommend mode under a steady load, in about twenty minutes; nor {@code fleet-saturation} ({@link FleetSaturationRun}): three
 * instances in JVMs of their own whose total follows the database through a surge from outside, in about a minute.
 */
public final class BenchmarkSuite {

    private BenchmarkSuite() {
    }

    private static final String USAGE = "usage: java -jar benchmarks.jar"
            + " [all|gate-cost|overload|isolation|adaptive|queue|path-cost|retry-amplification|shares|lending|scheduler"
            + "|signals|fleet-scale|saturation|fleet-saturation]"
            + " [--out DIR] [--quick]"
            + " [--forks N] [--iteration-time 1.5s] [--before JAR] [--paths TRANSACTIONAL,STARTER,...]"
            + " [--callers 1,8,32,v64,v512]";

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        List<String> arguments = new ArrayList<>(Arrays.asList(args));
        boolean quick = arguments.remove("--quick");
        Path out = Path.of("docs", "benchmarks");
        int outFlag = arguments.indexOf("--out");
        if (outFlag >= 0) {
            out = Path.of(arguments.get(outFlag + 1));
            arguments.subList(outFlag, outFlag + 2).clear();
        }
        String what = arguments.isEmpty() || arguments.getFirst().startsWith("--") ? "all" : arguments.removeFirst();
        // What is left are path-cost's options.
        if (!List.of("all", "gate-cost", "overload", "isolation", "adaptive", "queue", "path-cost",
                "retry-amplification", "shares", "lending", "scheduler", "signals", "fleet-scale", "saturation",
                "fleet-saturation").contains(what)
                || !arguments.isEmpty() && !List.of("all", "path-cost", "shares").contains(what)
                || what.equals("shares") && !onlyBefore(arguments)) {
            System.err.println(USAGE);
            System.exit(2);
        }
        PathCostRun pathCost = pathCostRun(quick, arguments);
        ScenarioSettings settings = quick ? ScenarioSettings.smoke() : ScenarioSettings.full();
        Files.createDirectories(out);
        if (what.equals("all") || what.equals("gate-cost")) {
            GateCostRun.run(quick ? GateCostRun.Effort.QUICK : GateCostRun.Effort.FULL, out);
            System.out.println("gate cost written to " + out.resolve("gate-cost.md"));
        }
        if (what.equals("all") || what.equals("overload")) {
            OverloadResult result = OverloadScenario.run(settings, OverloadScenario.GUARDS);
            ScenarioReport.writeOverload(result, out);
            System.out.println("overload written to " + out.resolve("overload.md"));
        }
        if (what.equals("all") || what.equals("isolation")) {
            List<IsolationRun> runs = IsolationScenario.run(settings);
            ScenarioReport.writeIsolation(runs, out, IsolationScenario.describe(settings));
            System.out.println("isolation written to " + out.resolve("isolation.md"));
        }
        if (what.equals("all") || what.equals("adaptive")) {
            for (AdaptiveScenario.Work work : AdaptiveScenario.Work.values()) {
                AdaptiveScenario.Result result = AdaptiveScenario.run(quick ? AdaptiveScenario.Timing.QUICK
                        : AdaptiveScenario.Timing.FULL, work);
                AdaptiveReport.write(result, out);
                System.out.println("adaptive limit written to " + out.resolve(work.file() + ".md"));
            }
        }
        if (what.equals("all") || what.equals("queue")) {
            QueueScenario.Result result = QueueScenario.run(quick ? QueueScenario.Timing.QUICK
                    : QueueScenario.Timing.FULL);
            QueueReport.write(result, out);
            System.out.println("queue discipline written to " + out.resolve("queue-sustained.md") + " and "
                    + out.resolve("queue-bursty.md"));
        }
        if (what.equals("all") || what.equals("path-cost")) {
            pathCost.run(out);
            System.out.println("user path cost written to " + out.resolve("path-cost.md"));
        }
        if (what.equals("all") || what.equals("retry-amplification")) {
            RetryAmplificationScenario.Result result = RetryAmplificationScenario.run(quick
                    ? RetryAmplificationScenario.Timing.QUICK : RetryAmplificationScenario.Timing.FULL);
            RetryAmplificationReport.write(result, Environment.describe(BenchDatabase.serverVersion()), out);
            System.out.println("retry amplification written to " + out.resolve("retry-amplification.md"));
        }
        if (what.equals("all") || what.equals("shares")) {
            // The lending scenario runs inside it, so that every target of the section comes from one run.
            SharesRun.Result result = SharesRun.run(quick, before(arguments));
            SharesReport.write(result, Environment.describe(BenchDatabase.serverVersion()), out);
            LendingReport.write(result.lending().detail(), Environment.describe(BenchDatabase.serverVersion()), out);
            System.out.println("tenants, criticality and lending written to " + out.resolve(SharesReport.FILE)
                    + " and " + out.resolve("lending.md"));
        } else if (what.equals("lending")) {
            LendingReport.write(LendingScenario.run(quick ? LendingScenario.Timing.QUICK : LendingScenario.Timing.FULL),
                    Environment.describe(BenchDatabase.serverVersion()), out);
            System.out.println("lending written to " + out.resolve("lending.md"));
        }
        if (what.equals("scheduler")) {
            SchedulerRun.Result result = SchedulerRun.run(quick);
            SchedulerReport.write(result, Environment.describe(BenchDatabase.serverVersion()), out);
            System.out.println(SchedulerReport.targets(result));
            System.out.println("scheduler written to " + out.resolve(SchedulerReport.FILE));
        }
        if (what.equals("signals")) {
            SignalsCostRun.run(quick, out);
            System.out.println("database signals' cost written to " + out.resolve("signals.md"));
        }
        if (what.equals("fleet-scale")) {
            FleetScaleRun.run(quick, out);
            System.out.println("fleet coordination at scale written to " + out.resolve("fleet-scale.md"));
        }
        if (what.equals("saturation")) {
            SaturationRun.run(quick, out);
            System.out.println("the database's signals as a limit written to " + out.resolve("saturation-limit.md"));
        }
        if (what.equals("fleet-saturation")) {
            FleetSaturationRun.run(quick, out);
            System.out.println("a fleet that follows the database written to " + out.resolve(FleetSaturationRun.FILE));
        }
        String environment = Environment.describe(BenchDatabase.serverVersion());
        if (!List.of("scheduler", "signals", "fleet-scale", "saturation", "fleet-saturation").contains(what)) {
            // The scheduler's and the signals' reports carry their own; the gate cost's environment stays its own.
            Files.writeString(out.resolve("environment.md"), environment);
        }
        System.out.println(environment);
        // The embedded PostgreSQL stops in a shutdown hook; JMH and HikariCP may leave non-daemon threads.
        System.exit(0);
    }

    /** Whether {@code arguments} are nothing or {@code --before JAR}. */
    private static boolean onlyBefore(List<String> arguments) {
        return arguments.isEmpty() || arguments.size() == 2 && arguments.getFirst().equals("--before");
    }

    /** The jar after {@code --before}, if given. */
    private static Optional<Path> before(List<String> arguments) {
        int flag = arguments.indexOf("--before");
        return flag < 0 || flag + 1 >= arguments.size() ? Optional.empty()
                : Optional.of(Path.of(arguments.get(flag + 1)));
    }

    /** Reads path-cost's options before anything runs, so that a mistyped one does not wait for the other scenarios. */
    private static PathCostRun pathCostRun(boolean quick, List<String> arguments) {
        try {
            return PathCostRun.of(quick, arguments);
        } catch (IllegalArgumentException badOption) {
            System.err.println(badOption.getMessage() + "\n" + USAGE);
            System.exit(2);
            throw badOption;
        }
    }
}
