package dev.dbbulkhead.benchmarks.pathcost;

import static dev.dbbulkhead.benchmarks.pathcost.PathTargets.signed;
import static dev.dbbulkhead.benchmarks.pathcost.PathTargets.signedPercent;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.percent;

import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import java.util.Optional;

/** The tables of path-cost.md: one per caller configuration, the targets, and with a "before" build, the change. */
final class PathCostReport {

    private static final String LEGEND = "µs/call: mean time per call per caller (wall time × callers / calls of"
            + " each iteration) ± the 99.9 % confidence half-width, over all iterations of all forks; × "
            + UserPath.TRANSACTIONAL.label() + ": ratio of the means; bytes/call: heap allocated by all threads per"
            + " call (virtual threads' on their carriers); process CPU: the JVM's CPU time per call, all threads;"
            + " DB CPU: the PostgreSQL server processes' CPU time per call (– where the server's processes cannot be"
            + " read); errors: calls that threw (the run is sized so that none are refused or time out); JIT"
            + " compiling: the JIT compilers' time as a share of the measured time (all compiler threads; – where not"
            + " reported) — a fork still compiling measures the compiler too: where it is high, warm up longer; longest"
            + " call: the longest single call of any iteration; idle callers: the most callers of one iteration none of"
            + " whose calls returned in it — callers held away while the others run, which no mean shows (– where the"
            + " build did not report them). Pool "
            + PathApplication.WIDTH + " connections, db-bulkhead B = " + PathApplication.WIDTH + ", Q = "
            + PathApplication.MOST_CALLERS + ", Resilience4j " + PathApplication.WIDTH
            + " concurrent calls; waits up to " + LoadSettings.seconds(PathApplication.LONGEST_WAIT) + ".\n\n";

    private PathCostReport() {
    }

    /** The report's text after its first line. */
    static String render(PathSummaries summaries) {
        StringBuilder text = new StringBuilder(LEGEND);
        for (Callers callers : summaries.callers()) {
            text.append("**").append(callers.label()).append("**, closed loop:\n\n")
                    .append(pathTable(summaries, callers)).append('\n');
        }
        text.append(PathTargets.table(summaries).map(targets -> "Targets, on the means (measured: the difference to"
                + " the reference; where not met, also how far the mean is above the target's limit):\n\n" + targets)
                .orElse("No target applies to the paths and callers run.\n"));
        if (summaries.hasBefore()) {
            text.append("\nBefore and after the change, the starter paths (the same harness, run from the build before"
                    + " the change and from this one, each pair of forks next to each other):\n\n")
                    .append(changeTable(summaries));
        }
        long errors = summaries.errors();
        if (errors > 0) {
            text.append("\n**").append(errors).append(" calls failed**: the run is sized so that none should; see the"
                    + " forks' output for the first failure of each.\n");
        }
        return text.toString();
    }

    private static MarkdownTable pathTable(PathSummaries summaries, Callers callers) {
        MarkdownTable table = new MarkdownTable("path", "µs/call", "× " + UserPath.TRANSACTIONAL.label(), "calls/s",
                "bytes/call", "bytes above " + UserPath.TRANSACTIONAL.label(), "process CPU µs/call", "DB CPU µs/call",
                "errors", "JIT compiling", "longest call, ms", "idle callers");
        Optional<PathSummary> plain = summaries.after(UserPath.TRANSACTIONAL, callers);
        for (UserPath path : UserPath.values()) {
            for (Variant variant : Variant.values()) {
                summaries.get(path, variant, callers).ifPresent(row -> table.row(
                        rowName(path, variant, summaries.hasBefore()),
                        micros(row),
                        plain.map(floor -> number(row.microsPerCall() / floor.microsPerCall(), 3)).orElse("–"),
                        number(row.callsPerSecond(), 0), number(row.bytesPerCall(), 0),
                        plain.map(floor -> signed(row.bytesPerCall() - floor.bytesPerCall(), 0)).orElse("–"),
                        number(row.processCpuMicrosPerCall(), 1), number(row.serverCpuMicrosPerCall(), 1),
                        row.errors(), percent(row.compilingShare()), number(row.longestCallMillis(), 1),
                        idleCallers(row)));
            }
        }
        return table;
    }

    /** The path's label, and which build where a run measured two. */
    private static String rowName(UserPath path, Variant variant, boolean withBefore) {
        return path.label() + (withBefore && path.starter() ? " (" + variant.label() + ")" : "");
    }

    private static MarkdownTable changeTable(PathSummaries summaries) {
        MarkdownTable table = new MarkdownTable("callers", "path", "µs/call before", "µs/call after", "change",
                "bytes/call before", "bytes/call after", "process CPU µs/call before", "process CPU µs/call after",
                "longest call ms, before", "longest call ms, after");
        for (Callers callers : summaries.callers()) {
            for (UserPath path : UserPath.values()) {
                summaries.get(path, Variant.BEFORE, callers).ifPresent(before ->
                        summaries.after(path, callers).ifPresent(after -> table.row(callers.label(), path.label(),
                                micros(before),
                                micros(after),
                                signedPercent(after.microsPerCall() / before.microsPerCall() - 1),
                                number(before.bytesPerCall(), 0), number(after.bytesPerCall(), 0),
                                number(before.processCpuMicrosPerCall(), 1),
                                number(after.processCpuMicrosPerCall(), 1), number(before.longestCallMillis(), 1),
                                number(after.longestCallMillis(), 1))));
            }
        }
        return table;
    }

    private static String idleCallers(PathSummary summary) {
        return summary.mostIdleCallers() == IterationResult.NOT_STALLS_MEASURED ? "–"
                : Integer.toString(summary.mostIdleCallers());
    }

    /** "123.4 ± 5.6": the mean and its error. */
    private static String micros(PathSummary summary) {
        return number(summary.microsPerCall(), 1) + " ± " + number(summary.microsPerCallError(), 1);
    }
}
