package dev.dbbulkhead.benchmarks.adaptive;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.adaptive.AdaptiveScenario.Work;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import dev.dbbulkhead.saturation.SaturationLimits;
import java.util.Arrays;
import java.util.DoubleSummaryStatistics;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Recommend mode under a steady load, on CPU-bound and on lock-bound work: does the B it shows stay put (within ±1)
 * over a minute, and does a fixed B of that figure commit within 10 % of the best of a fixed-B sweep? A gate of
 * B = {@value AdaptiveScenario#POOL_SIZE} recommends for {@link #WARM_UP} + {@link #STEADY} seconds; then each fixed
 * B of the sweep and the B it showed last run {@link SaturationRun#LOCK_ROUNDS} rounds each, interleaved.
 */
final class SteadyRecommendation {

    /** Seconds before the minute watched: the default window's first figure needs five samples, a second each. */
    static final double WARM_UP = 15;
    /** The minute of steady load over which the B shown is watched. */
    static final double STEADY = 60;
    /** Seconds of warm-up, then measured, of each fixed-B run. */
    static final double FIXED_WARM_UP = 3;
    static final double FIXED_MEASURED = 7;

    private SteadyRecommendation() {
    }

    /** One section for {@code work}, appended to {@code text}. */
    static void append(BenchDatabase database, HikariDataSource signals, Work work, SaturationRun.Calibrated calibrated,
                       int serverCpus, boolean quick, StringBuilder text) throws Exception {
        double warmUp = quick ? 0.5 : WARM_UP;
        double steady = quick ? 1 : STEADY;
        LimitRun recommending = AdaptiveScenario.runOne(database, work,
                Contender.recommending(AdaptiveScenario.POOL_SIZE, signals, serverCpus), calibrated.rows(),
                calibrated.offered(), warmUp + steady, null);
        DoubleSummaryStatistics shown = recommending.limits().stream().filter(sample -> sample[0] >= warmUp)
                .mapToDouble(sample -> sample[1]).summaryStatistics();
        int last = (int) recommending.limits().getLast()[1];
        List<Integer> bs = IntStream.concat(Arrays.stream(AdaptiveScenario.FIXED_LIMITS), IntStream.of(last))
                .distinct().sorted().boxed().toList();
        long sloNanos = (long) (calibrated.cost().p50() * SaturationRun.SLO_TIMES_COST * 1e6);
        int rounds = quick ? 1 : SaturationRun.LOCK_ROUNDS;
        double from = quick ? 0.2 : FIXED_WARM_UP;
        double to = from + (quick ? 0.4 : FIXED_MEASURED);
        double[][] withinSlo = new double[bs.size()][rounds];
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < bs.size(); i++) {
                LimitRun run = AdaptiveScenario.runOne(database, work, Contender.fixed(bs.get(i)), calibrated.rows(),
                        calibrated.offered(), to, null);
                withinSlo[i][round] = run.log().committedEndingBetween((long) (from * 1e9), (long) (to * 1e9),
                        sloNanos) / (to - from);
            }
        }
        MarkdownTable table = new MarkdownTable("fixed B", "goodput within SLO /s (median round)",
                "within SLO by round /s");
        double best = 0;
        int bestB = 0;
        double atShown = 0;
        for (int i = 0; i < bs.size(); i++) {
            double median = withinSlo[i][SaturationRun.medianRound(withinSlo[i])];
            if (median > best) {
                best = median;
                bestB = bs.get(i);
            }
            if (bs.get(i) == last) {
                atShown = median;
            }
            table.row(bs.get(i) + (bs.get(i) == last ? " (the B it showed)" : ""), number(median, 0),
                    Arrays.stream(withinSlo[i]).mapToObj(value -> number(value, 0)).collect(Collectors.joining(", ")));
        }
        text.append(String.format(Locale.ROOT, "### %s%n%nA transaction that %s: %s ms alone on the idle server (p50);"
                        + " SLO %d × that = %s ms. %,.0f arrivals per second, open loop; pool %d; Q = 0. Recommend mode"
                        + " on a gate of B = %d for %s s, the database's limit sampling every second (recommendation"
                        + " window %s); then each fixed B below %d rounds, each run %s s of warm-up and %s s"
                        + " measured.%n%n",
                work == Work.CPU_BOUND ? "CPU-bound work" : "Lock-bound work: one hot row",
                work.describe(calibrated.rows()), number(calibrated.cost().p50(), 2), SaturationRun.SLO_TIMES_COST,
                number(sloNanos / 1e6, 1), calibrated.offered(), AdaptiveScenario.POOL_SIZE,
                AdaptiveScenario.POOL_SIZE, number(warmUp + steady, 0),
                SaturationLimits.DEFAULT_RECOMMENDATION_WINDOW, rounds, number(from, 1), number(to - from, 1)))
                .append(table).append('\n')
                .append(String.format(Locale.ROOT, "- the B it showed over the minute after %s s: from %s to %s"
                                + " (every 100 ms), %d at the end; varies by at most ±1: %s%n",
                        number(warmUp, 0), number(shown.getMin(), 0), number(shown.getMax(), 0), last,
                        shown.getMax() - shown.getMin() <= 2 ? "met" : "not met"))
                .append(String.format(Locale.ROOT, "- a fixed B of %d, the B it showed, committed %s per second within"
                                + " the SLO: **%s ×** the best fixed B's (B = %d, %s per second); within the best"
                                + " 10 %%: %s%n%n",
                        last, number(atShown, 0), number(atShown / best, 2), bestB, number(best, 0),
                        atShown >= 0.9 * best ? "met" : "not met"));
    }

}
