package dev.dbbulkhead.benchmarks.adaptive;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;

import dev.dbbulkhead.benchmarks.adaptive.AdaptiveScenario.Result;
import dev.dbbulkhead.benchmarks.adaptive.AdaptiveScenario.Timing;
import dev.dbbulkhead.benchmarks.adaptive.LimitRun.Phase;
import dev.dbbulkhead.benchmarks.report.Charts;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The adaptive-limit report: the sweep with each target marked met or not, the change-over-time table and its
 * charts. Every number is the harness's own measurement; the targets are the ones the feature was built to.
 */
public final class AdaptiveReport {

    static final double GOODPUT_TARGET = 0.95;
    static final double P99_TARGET = 1.5;
    static final double LOWER_WITHIN_SECONDS = 5;
    static final double RECOVER_WITHIN_SECONDS = 10;
    static final double DISTURBED_P99_TARGET = 2.0;
    /** Fixed B whose goodput is this close to the best count as tied; the lowest p99 of them is the best fixed B. */
    static final double GOODPUT_TIE = 0.98;
    /** Lowered and recovered are judged on the median limit over this span, not on one sample. */
    static final double MEDIAN_SPAN_SECONDS = 1;

    private AdaptiveReport() {
    }

    /** Writes {@code <work>.md} ({@code adaptive.md}, {@code adaptive-lock.md}) and its charts into {@code out}. */
    public static void write(Result result, Path out) throws IOException {
        String file = result.work().file();
        Timing timing = result.timing();
        double from = timing.warmUp();
        double to = timing.warmUp() + timing.measured();
        StringBuilder text = new StringBuilder("### Setup\n\n");
        text.append(String.format(Locale.ROOT, "A transaction that %s: %s ms alone on the idle server (p50 of %d, p99"
                        + " %s ms). Pool P = %d; %,.0f arrivals per second, open loop (%d × %d at that cost, on %d"
                        + " CPUs); Q = 0 for every contender, so over the"
                        + " limit is refused at once. Each run gets a fresh pool. Sweep runs: %s s of warm-up (not"
                        + " counted: the adaptive limits start at %d), then %s s measured. Load average after the runs:"
                        + " %s.%n%n",
                result.work().describe(result.rows()), number(result.cost().p50(), 2), result.cost().count(),
                number(result.cost().p99(), 2), AdaptiveScenario.POOL_SIZE, result.offered(),
                AdaptiveScenario.OVERLOAD_FACTOR, result.work().parallel(), result.cpus(),
                number(timing.warmUp(), 1), AdaptiveScenario.POOL_SIZE, number(timing.measured(), 1),
                number(result.loadAverage(), 2)));

        text.append("### Sweep\n\n");
        MarkdownTable sweep = new MarkdownTable("contender", "limit (mean)", "goodput /s", "refused /s",
                "success p50 ms", "success p99 ms");
        List<Phase> phases = new ArrayList<>();
        for (LimitRun run : result.sweep()) {
            Phase phase = run.phase(from, to);
            phases.add(phase);
            sweep.row(run.label(), number(phase.meanLimit(), 1), number(phase.goodput(), 0),
                    number(phase.rejected(), 0), number(phase.successes().p50(), 2), number(phase.successes().p99(), 2));
        }
        text.append(sweep).append('\n');
        int best = bestFixed(phases, AdaptiveScenario.FIXED_LIMITS.length);
        Phase bestPhase = phases.get(best);
        text.append(String.format(Locale.ROOT, "Best fixed B: **%s** (the highest goodput; of the fixed B within %d %%"
                        + " of it, the lowest p99): %s commits/s, p99 %s ms.%n%n", result.sweep().get(best).label(),
                Math.round((1 - GOODPUT_TIE) * 100), number(bestPhase.goodput(), 0),
                number(bestPhase.successes().p99(), 2)));
        MarkdownTable targets = new MarkdownTable("target", "adaptive (db-bulkhead)", "Gradient2 (Netflix)");
        Phase adaptive = phases.get(phases.size() - 2);
        Phase gradient2 = phases.get(phases.size() - 1);
        targets.row("goodput ≥ " + Math.round(GOODPUT_TARGET * 100) + " % of the best fixed B's",
                goodputVerdict(adaptive, bestPhase), goodputVerdict(gradient2, bestPhase));
        targets.row("success p99 ≤ " + P99_TARGET + " × the best fixed B's",
                p99Verdict(adaptive, bestPhase), p99Verdict(gradient2, bestPhase));
        text.append(targets).append('\n');

        text.append("### Change mid-run\n\n");
        double change = timing.undisturbed();
        double stop = change + timing.disturbed();
        text.append(String.format(Locale.ROOT, "%d ungated connections run the same transaction back to back from"
                        + " %s s to %s s; the contenders' load stays as above. \"Before\" is the last %s s before the"
                        + " change, \"during\" the competing load, \"after\" from its stop to the end (%s s). Lowered:"
                        + " the first moment after the change from which the median limit over the next %s s is below"
                        + " the median limit before it; recovered: the first moment after the stop from which it is back"
                        + " at that median or above (samples every 100 ms).%n%n",
                result.work().competing(), number(change, 0), number(stop, 0),
                number(change / 2, 0), number(timing.changeWindow(), 0), number(MEDIAN_SPAN_SECONDS, 0)));
        MarkdownTable changeTable = new MarkdownTable("contender", "limit before (median)", "limit during (median)",
                "lowered after s", "recovered after s", "p99 before ms", "p99 during ms", "during / before",
                "p99 after ms", "goodput before /s", "goodput during /s");
        List<String> verdicts = new ArrayList<>();
        for (LimitRun run : result.change()) {
            Phase before = run.phase(change / 2, change);
            Phase during = run.phase(change, stop);
            Phase after = run.phase(stop, timing.changeWindow());
            double undisturbed = before.medianLimit();
            double lowered = run.firstSecondWhereMedian(change, MEDIAN_SPAN_SECONDS, limit -> limit < undisturbed);
            double recovered = run.firstSecondWhereMedian(stop, MEDIAN_SPAN_SECONDS, limit -> limit >= undisturbed);
            double ratio = during.successes().p99() / before.successes().p99();
            changeTable.row(run.label(), number(undisturbed, 0), number(during.medianLimit(), 0), number(lowered, 1),
                    number(recovered, 1), number(before.successes().p99(), 2), number(during.successes().p99(), 2),
                    number(ratio, 2), number(after.successes().p99(), 2), number(before.goodput(), 0),
                    number(during.goodput(), 0));
            verdicts.add(changeVerdict(run.label(), lowered, recovered, ratio));
        }
        text.append(changeTable).append('\n');
        verdicts.forEach(verdict -> text.append("- ").append(verdict).append('\n'));
        text.append('\n');
        text.append("![limit over time](" + file + "-limit.png)\n\n![success p99 over time](" + file + "-p99.png)\n");
        Files.writeString(out.resolve(file + ".md"), text);

        String window = " (competing load " + number(change, 0) + "–" + number(stop, 0) + " s)";
        List<Charts.Series> limits = result.change().stream()
                .map(run -> new Charts.Series(run.label(), run.limits())).toList();
        Charts.lineChart(out.resolve(file + "-limit.png"), "Concurrency limit in force over time" + window,
                "seconds", "limit", false, limits, List.of());
        List<Charts.Series> p99 = result.change().stream()
                .map(run -> new Charts.Series(run.label(), run.p99OverTime(timing.slice(), timing.changeWindow())))
                .toList();
        Charts.lineChart(out.resolve(file + "-p99.png"), "Success p99 per " + number(timing.slice() * 1000, 0)
                + " ms of arrivals" + window, "seconds", "p99 (ms)", true, p99, List.of());
    }

    /** The index of the best fixed B: the highest goodput, and among those within the tie, the lowest p99. */
    private static int bestFixed(List<Phase> phases, int fixedCount) {
        double most = phases.subList(0, fixedCount).stream().mapToDouble(Phase::goodput).max().orElseThrow();
        int best = -1;
        for (int i = 0; i < fixedCount; i++) {
            Phase phase = phases.get(i);
            if (phase.goodput() >= GOODPUT_TIE * most
                    && (best < 0 || phase.successes().p99() < phases.get(best).successes().p99())) {
                best = i;
            }
        }
        return best;
    }

    private static String goodputVerdict(Phase phase, Phase best) {
        double share = phase.goodput() / best.goodput();
        return verdict(share >= GOODPUT_TARGET, MarkdownTable.percent(share));
    }

    private static String p99Verdict(Phase phase, Phase best) {
        double ratio = phase.successes().p99() / best.successes().p99();
        return verdict(ratio <= P99_TARGET, number(ratio, 2) + " ×");
    }

    private static String changeVerdict(String label, double lowered, double recovered, double ratio) {
        if (label.startsWith("fixed")) {
            return label + ": p99 during / before = " + number(ratio, 2) + " — its p99 "
                    + (ratio > 1 ? "climbs" : "does not climb") + " (expected to climb)";
        }
        return label + ": lowers within " + number(LOWER_WITHIN_SECONDS, 0) + " s — "
                + verdict(lowered <= LOWER_WITHIN_SECONDS, number(lowered, 1) + " s") + "; recovers within "
                + number(RECOVER_WITHIN_SECONDS, 0) + " s — "
                + verdict(recovered <= RECOVER_WITHIN_SECONDS, number(recovered, 1) + " s") + "; p99 during ≤ "
                + number(DISTURBED_P99_TARGET, 0) + " × before — "
                + verdict(ratio <= DISTURBED_P99_TARGET, number(ratio, 2) + " ×");
    }

    private static String verdict(boolean met, String figure) {
        return figure + (met ? " **met**" : " **not met**");
    }
}
