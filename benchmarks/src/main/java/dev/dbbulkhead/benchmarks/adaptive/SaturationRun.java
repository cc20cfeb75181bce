package dev.dbbulkhead.benchmarks.adaptive;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.adaptive.AdaptiveScenario.Timing;
import dev.dbbulkhead.benchmarks.adaptive.AdaptiveScenario.Work;
import dev.dbbulkhead.benchmarks.load.LatencySummary;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.report.Environment;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import dev.dbbulkhead.saturation.SamplerSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The limit that follows the database's signals against the latency limit and fixed B, in the adaptive scenario's
 * setting (pool of {@value AdaptiveScenario#POOL_SIZE}, open-loop arrivals at twice what the server serves, Q = 0):
 * <ul>
 *   <li><b>lock contention</b>: the lock-bound transaction (one hot row), a sweep of fixed B, the latency limit and
 *       the database's; goodput within the SLO (commits within {@value #SLO_TIMES_COST} × the transaction's cost on
 *       the idle server);</li>
 *   <li><b>a surge outside the gates</b>: the CPU-bound transaction, and another client's ungated connections
 *       running it too in the middle of the run; when each limit backs off and recovers, and the p99 before, during
 *       and after.</li>
 *   <li><b>recommend mode under a steady load</b>, CPU-bound and lock-bound: whether the B it shows stays within ±1
 *       over a minute and lies within the best 10 % of a fixed-B sweep ({@link SteadyRecommendation}).</li>
 * </ul>
 * {@code java -jar benchmarks.jar saturation [--out DIR] [--quick]} writes saturation-limit.md.
 */
public final class SaturationRun {

    /** The SLO of the lock-bound goodput, in multiples of the transaction's p50 on the idle server. */
    static final int SLO_TIMES_COST = 10;
    private static final int CPUS = Runtime.getRuntime().availableProcessors();
    /** Rounds of the lock-contention sweep, each running every contender once. */
    static final int LOCK_ROUNDS = 3;
    /**
     * The warm-up of each lock-contention run, in seconds. The database's limit decides once a sample (a second), and
     * from B = 20 it cuts, then measures its way up one B a sample: ten samples let it settle before the window opens,
     * as hundreds of operations a second let the latency limit. Every contender gets the same.
     */
    static final double LOCK_WARM_UP = 10;

    private SaturationRun() {
    }

    /** Runs both parts and writes saturation-limit.md into {@code out}. */
    public static void run(boolean quick, Path out) throws Exception {
        Timing timing = quick ? Timing.QUICK : Timing.FULL;
        Instant began = Instant.now();
        BenchDatabase database = BenchDatabase.create();
        StringBuilder text = new StringBuilder("# The database's signals as a limit\n\n");
        try (HikariDataSource signals = database.pool(1, AdaptiveScenario.POOL_TIMEOUT, "signals")) {
            lockContention(database, signals, timing, quick, text);
            // One calibration of the CPU-bound transaction for both parts: the second speaks of "the transaction above".
            Calibrated cpuBound = calibrate(database, Work.CPU_BOUND);
            surge(database, signals, timing, cpuBound, text);
            criticalBesideSheddable(database, signals, timing, cpuBound, text);
            text.append("## Recommend mode under a steady load\n\n");
            SteadyRecommendation.append(database, signals, Work.CPU_BOUND, cpuBound, CPUS, quick, text);
            SteadyRecommendation.append(database, signals, Work.LOCK_BOUND, calibrate(database, Work.LOCK_BOUND),
                    CPUS, quick, text);
        }
        text.append("From ").append(began).append(" to ").append(Instant.now()).append(". Load average after the runs: ")
                .append(number(RunConditions.loadAverage(), 2)).append(".\n\n")
                .append(Environment.describe(BenchDatabase.serverVersion())).append('\n');
        Files.createDirectories(out);
        Files.writeString(out.resolve("saturation-limit.md"), text);
    }

    private static void lockContention(BenchDatabase database, HikariDataSource signals, Timing timing,
                                       boolean quick, StringBuilder text) throws Exception {
        Work work = Work.LOCK_BOUND;
        Calibrated calibrated = calibrate(database, work);
        long sloNanos = (long) (calibrated.cost().p50() * SLO_TIMES_COST * 1e6);
        List<Contender> contenders = new ArrayList<>();
        for (int maxConcurrent : AdaptiveScenario.FIXED_LIMITS) {
            contenders.add(Contender.fixed(maxConcurrent));
        }
        contenders.add(Contender.adaptive(AdaptiveScenario.POOL_SIZE));
        contenders.add(Contender.database(AdaptiveScenario.POOL_SIZE, signals, CPUS));
        contenders.add(Contender.recommending(AdaptiveScenario.POOL_SIZE, signals, CPUS));
        double from = quick ? timing.warmUp() : Math.max(timing.warmUp(), LOCK_WARM_UP);
        double to = from + timing.measured();
        int rounds = quick ? 1 : LOCK_ROUNDS;
        // Rounds interleave the contenders, so that a drift of the machine's load reaches every contender alike
        // instead of the ones that happen to run while it lasts; each contender's numbers are its median round's.
        double[][] roundsWithinSlo = new double[contenders.size()][rounds];
        LimitRun.Phase[][] roundPhases = new LimitRun.Phase[contenders.size()][rounds];
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < contenders.size(); i++) {
                LimitRun run = AdaptiveScenario.runOne(database, work, contenders.get(i), calibrated.rows(),
                        calibrated.offered(), to, null);
                roundPhases[i][round] = run.phase(from, to);
                roundsWithinSlo[i][round] = run.log().committedEndingBetween((long) (from * 1e9), (long) (to * 1e9),
                        sloNanos) / (to - from);
            }
        }
        MarkdownTable table = new MarkdownTable("contender", "limit (mean)", "goodput within SLO /s", "goodput /s",
                "success p99 ms", "within SLO by round /s");
        double[] withinSlo = new double[contenders.size()];
        double[] medianLimits = new double[contenders.size()];
        for (int i = 0; i < contenders.size(); i++) {
            int median = medianRound(roundsWithinSlo[i]);
            LimitRun.Phase phase = roundPhases[i][median];
            medianLimits[i] = phase.medianLimit();
            withinSlo[i] = roundsWithinSlo[i][median];
            String byRound = Arrays.stream(roundsWithinSlo[i]).mapToObj(value -> number(value, 0))
                    .collect(Collectors.joining(", "));
            table.row(contenders.get(i).label(), number(phase.meanLimit(), 1), number(withinSlo[i], 0),
                    number(phase.goodput(), 0), number(phase.successes().p99(), 2), byRound);
        }
        int fixed = AdaptiveScenario.FIXED_LIMITS.length;
        double bestFixed = 0;
        String bestLabel = "";
        for (int i = 0; i < fixed; i++) {
            if (withinSlo[i] > bestFixed) {
                bestFixed = withinSlo[i];
                bestLabel = contenders.get(i).label();
            }
        }
        double latencyOnly = withinSlo[fixed];
        double signalled = withinSlo[fixed + 1];
        // The recommending contender's limit in force is the B it recommends.
        double recommended = medianLimits[fixed + 2];
        int nearest = 0;
        for (int i = 1; i < fixed; i++) {
            if (Math.abs(AdaptiveScenario.FIXED_LIMITS[i] - recommended)
                    < Math.abs(AdaptiveScenario.FIXED_LIMITS[nearest] - recommended)) {
                nearest = i;
            }
        }
        text.append("## Lock contention: one hot row\n\n").append(String.format(Locale.ROOT, "A transaction that %s:"
                        + " %s ms alone on the idle server (p50); SLO %d × that = %s ms. %,.0f arrivals per second,"
                        + " open loop; pool %d; Q = 0. Each run %s s of warm-up, then %s s measured; the database's"
                        + " limit samples every %s, with %d server CPUs. %d rounds, each running every contender once"
                        + " in the order below, so that a change of the machine's load reaches all of them alike; a"
                        + " contender's numbers are those of its median round by goodput within the SLO.%n%n",
                work.describe(calibrated.rows()), number(calibrated.cost().p50(), 2), SLO_TIMES_COST,
                number(sloNanos / 1e6, 1), calibrated.offered(), AdaptiveScenario.POOL_SIZE,
                number(from, 1), number(timing.measured(), 1), SamplerSettings.DEFAULT_INTERVAL, CPUS,
                rounds))
                .append(table).append('\n')
                .append(String.format(Locale.ROOT, "- goodput within the SLO against the latency limit's (a figure,"
                                + " no longer a target: a latency limit backs off on a hot row as well): %s / %s ="
                                + " **%s ×**; the best fixed B's is %s × the latency limit's"
                                + "%n- ≥ 0.95 × the best fixed B's (%s): %s / %s = **%s ×** (%s)%n",
                        number(signalled, 0), number(latencyOnly, 0), number(signalled / latencyOnly, 2),
                        number(bestFixed / latencyOnly, 2),
                        bestLabel, number(signalled, 0),
                        number(bestFixed, 0), number(signalled / bestFixed, 2),
                        signalled >= 0.95 * bestFixed ? "met" : "not met"))
                .append(String.format(Locale.ROOT, "- recommend mode at B = %d: the B it showed (median over the"
                                + " measured window) is %s; the fixed B of the sweep nearest to it, %d, committed %s per"
                                + " second within the SLO: **%s ×** the best fixed B's; within the best 10 %%: %s%n%n",
                        AdaptiveScenario.POOL_SIZE, number(recommended, 1), AdaptiveScenario.FIXED_LIMITS[nearest],
                        number(withinSlo[nearest], 0), number(withinSlo[nearest] / bestFixed, 2),
                        withinSlo[nearest] >= 0.9 * bestFixed ? "met" : "not met"));
    }

    private static void surge(BenchDatabase database, HikariDataSource signals, Timing timing, Calibrated calibrated,
                              StringBuilder text) throws Exception {
        Work work = Work.CPU_BOUND;
        double change = timing.undisturbed();
        double stop = change + timing.disturbed();
        MarkdownTable table = new MarkdownTable("contender", "limit before (median)", "limit during (median)",
                "backed off after s", "recovered after s", "p99 before ms", "p99 during ms", "p99 during / unloaded",
                "p99 after ms", "goodput during /s");
        List<String> verdicts = new ArrayList<>();
        for (Contender contender : List.of(Contender.database(AdaptiveScenario.POOL_SIZE, signals, CPUS),
                Contender.adaptive(AdaptiveScenario.POOL_SIZE))) {
            LimitRun run = AdaptiveScenario.runOne(database, work, contender, calibrated.rows(), calibrated.offered(),
                    timing.changeWindow(), timing);
            LimitRun.Phase before = run.phase(change / 2, change);
            LimitRun.Phase during = run.phase(change, stop);
            LimitRun.Phase after = run.phase(stop, timing.changeWindow());
            double undisturbed = before.medianLimit();
            double lowered = run.firstSecondWhereMedian(change, AdaptiveReport.MEDIAN_SPAN_SECONDS,
                    limit -> limit < undisturbed);
            double recovered = run.firstSecondWhereMedian(stop, AdaptiveReport.MEDIAN_SPAN_SECONDS,
                    limit -> limit >= undisturbed);
            double unloaded = during.successes().p99() / calibrated.cost().p99();
            table.row(run.label(), number(undisturbed, 0), number(during.medianLimit(), 0), number(lowered, 1),
                    number(recovered, 1), number(before.successes().p99(), 2), number(during.successes().p99(), 2),
                    number(unloaded, 2), number(after.successes().p99(), 2), number(during.goodput(), 0));
            verdicts.add(String.format(Locale.ROOT, "%s: backed off within 2 s: %s; recovered within 5 s: %s;"
                            + " p99 during %s × unloaded (a figure: a surge that takes the processors puts any"
                            + " p99 target against the idle server out of reach)", run.label(),
                    lowered <= 2 ? "met" : "not met", recovered <= 5 ? "met" : "not met", number(unloaded, 2)));
        }
        text.append("## A surge outside the gates: another client's CPU-bound queries\n\n")
                .append(String.format(Locale.ROOT, "A transaction that %s: %s ms alone on the idle server (p50, p99 %s"
                                + " ms). %,.0f arrivals per second, open loop; pool %d; Q = 0. %d ungated connections"
                                + " run the same transaction back to back from %s s to %s s. Backed off: the first"
                                + " moment after the surge began from which the median limit over the next %s s is"
                                + " below the median before it; recovered: the first moment after it ended from which"
                                + " it is back at that median or above (limits sampled every 100 ms).%n%n",
                        work.describe(calibrated.rows()), number(calibrated.cost().p50(), 2),
                        number(calibrated.cost().p99(), 2), calibrated.offered(), AdaptiveScenario.POOL_SIZE,
                        work.competing(), number(change, 0), number(stop, 0),
                        number(AdaptiveReport.MEDIAN_SPAN_SECONDS, 0)))
                .append(table).append('\n');
        verdicts.forEach(verdict -> text.append("- ").append(verdict).append('\n'));
        text.append('\n');
    }

    /**
     * Critical and sheddable work on one pool, each with a gate of its own, and the same surge from outside: does
     * lowering the sheddable work keep the critical work's p99 near what it was before the surge?
     */
    private static void criticalBesideSheddable(BenchDatabase database, HikariDataSource signals, Timing timing,
                                                Calibrated calibrated, StringBuilder text) throws Exception {
        Work work = Work.CPU_BOUND;
        double change = timing.undisturbed();
        double stop = change + timing.disturbed();
        double capacity = work.parallel() / (calibrated.cost().p50() / 1000.0);
        MarkdownTable table = new MarkdownTable("gates", "critical p99 before ms", "critical p99 during ms",
                "during / before", "during / idle server", "critical B during (median)", "critical goodput during /s",
                "sheddable B during (median)", "sheddable goodput during /s");
        List<String> verdicts = new ArrayList<>();
        for (boolean steered : new boolean[] {true, false}) {
            TwoWorkloads.Result result = TwoWorkloads.run(database, work, calibrated.rows(), 0.5 * capacity,
                    AdaptiveScenario.OVERLOAD_FACTOR * capacity, steered ? signals : null, CPUS, timing);
            LimitRun critical = result.critical();
            LimitRun sheddable = result.sheddable();
            double before = critical.phase(change / 2, change).successes().p99();
            double during = critical.phase(change, stop).successes().p99();
            String label = steered ? "steered by the database's signals" : "fixed B";
            table.row(label, number(before, 2), number(during, 2), number(during / before, 2),
                    number(during / calibrated.cost().p99(), 2), number(critical.phase(change, stop).medianLimit(), 0),
                    number(critical.phase(change, stop).goodput(), 0),
                    number(sheddable.phase(change, stop).medianLimit(), 0),
                    number(sheddable.phase(change, stop).goodput(), 0));
            verdicts.add(String.format(Locale.ROOT, "%s: critical p99 during the surge ≤ 1.5 × before it: %s;"
                            + " %s × the transaction's p99 on the idle server (%s ms), a figure", label,
                    during <= 1.5 * before ? "met" : "not met", number(during / calibrated.cost().p99(), 2),
                    number(calibrated.cost().p99(), 2)));
        }
        text.append("## Critical work beside sheddable work, and the same surge\n\n")
                .append(String.format(Locale.ROOT, "The CPU-bound transaction above, two workloads on one pool of %d:"
                                + " critical (B = %d) offered %,.0f calls per second, half of what the server"
                                + " serves; sheddable (B = %d) offered %,.0f, twice it; Q = 0. %d ungated connections"
                                + " run the transaction from %s s to %s s. Steered: one limit follows the database for"
                                + " both, the sheddable workload lowered first and the critical one never for work from"
                                + " outside; fixed: both B as configured. \"Before\" is the last %s s before the surge.%n%n",
                        AdaptiveScenario.POOL_SIZE, TwoWorkloads.CRITICAL_B, 0.5 * capacity, TwoWorkloads.SHEDDABLE_B,
                        AdaptiveScenario.OVERLOAD_FACTOR * capacity, work.competing(), number(change, 0),
                        number(stop, 0), number(change / 2, 0)))
                .append(table).append('\n');
        verdicts.forEach(verdict -> text.append("- ").append(verdict).append('\n'));
        text.append('\n');
    }

    /** The round whose value is the median of {@code values} (the lower middle one of an even count). */
    static int medianRound(double[] values) {
        Integer[] order = new Integer[values.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingDouble(i -> values[i]));
        return order[(order.length - 1) / 2];
    }

    static Calibrated calibrate(BenchDatabase database, Work work) throws Exception {
        try (HikariDataSource pool = database.pool(1, AdaptiveScenario.POOL_TIMEOUT, "calibration")) {
            int rows = AdaptiveScenario.calibrateRows(pool, work);
            LatencySummary cost = AdaptiveScenario.measure(pool, work, rows);
            double offered = AdaptiveScenario.OVERLOAD_FACTOR * work.parallel() / (cost.p50() / 1000.0);
            return new Calibrated(rows, cost, offered);
        }
    }

    record Calibrated(int rows, LatencySummary cost, double offered) {
    }
}
