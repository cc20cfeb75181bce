package dev.dbbulkhead.benchmarks.scheduler;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.percent;

import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** The tenant corners' report, tenant-corners.md: one row a corner against the target, then every stream. */
public final class TenantCornersReport {

    public static final String FILE = "tenant-corners.md";

    private TenantCornersReport() {
    }

    /** Writes {@value #FILE} into {@code out} and returns its text. */
    public static String write(TenantCornersRun.Result result, String environment, Path out) throws IOException {
        StringBuilder text = new StringBuilder("### Corners\n\n").append(corners(result)).append('\n')
                .append("Each corner: a fresh pool of B connections, one gate (B = ")
                .append(TenantCornersRun.MAX_CONCURRENT).append(", Q = ").append(TenantCornersRun.MAX_QUEUED)
                .append(", fair shares), `tenant-0` offering 10 × the nine others together, 3 × the capacity in")
                .append(" all, each tenant's calls a Poisson process; each call `pg_sleep` drawn from half to one and")
                .append(" a half times a mean sleep, a one-row UPDATE, commit. The mean sleep is calibrated so that a")
                .append(" place is held the operation's time, admission to release as the gate times it, with a gate")
                .append(" of B without rules offered 3 × B / operation for ")
                .append(TenantCornersRun.CAPACITY_WINDOW.toSeconds()).append(" s or ")
                .append(TenantCornersRun.CALIBRATION_HOLDS_EACH).append(" operations a round, whichever is longer;")
                .append(" the capacity is what that gate served in the last round. Held: the corner's own mean hold;")
                .append(" the queue wait is a multiple of the operation's time. A corner runs until each quiet tenant")
                .append(" has offered about ")
                .append(TenantCornersRun.QUIET_CALLS_EACH).append(" calls, ")
                .append(TenantCornersRun.LEAST_WINDOW.toSeconds()).append(" s at least. Busy: the gate's `active()`")
                .append(" sampled during the arrivals, as a share of B.\n\n")
                .append("### Streams\n\n").append(streams(result)).append('\n');
        return SchedulerReport.finish(text, result.corners().stream().map(TenantCornersRun.Corner::run).toList(),
                result.began(), result.ended(), environment, out.resolve(FILE));
    }

    /** One row a corner, with its verdict: for the console too. */
    public static String corners(TenantCornersRun.Result result) {
        MarkdownTable table = new MarkdownTable("operation", "queue wait", "mean sleep", "held", "capacity/s",
                "window", "busy",
                "least quiet tenant", "nine quiet together", "noisy", "quiet refused", "every quiet tenant ≥ 95 %",
                "load average");
        for (TenantCornersRun.Corner corner : result.corners()) {
            GateCase.Result run = corner.run();
            GateCase.StreamResult least = corner.leastQuiet();
            int quietOffered = 0;
            int quietCommitted = 0;
            Map<String, Integer> reasons = new TreeMap<>();
            for (GateCase.StreamResult stream : run.streams()) {
                if (!stream.name().equals(SchedulerRun.noisyTenant())) {
                    quietOffered += stream.offered();
                    quietCommitted += stream.committed();
                    stream.refusals().forEach((reason, count) -> reasons.merge(reason, count, Integer::sum));
                }
            }
            String refused = reasons.entrySet().stream().map(reason -> reason.getValue() + " " + reason.getKey())
                    .collect(Collectors.joining(", "));
            table.row(corner.hold().toMillis() + " ms", number(corner.waitOverHold(), 1) + " ×",
                    millis(corner.calibration().sleep()), millis(run.meanHold()),
                    number(corner.calibration().capacity(), 0), run.window().toSeconds() + " s", percent(run.busy()),
                    least.name() + " " + percent(least.success()) + " of " + number(least.offered(), 0),
                    percent((double) quietCommitted / quietOffered) + " of " + number(quietOffered, 0),
                    percent(run.stream(SchedulerRun.noisyTenant()).success()),
                    refused.isEmpty() ? "none" : refused,
                    (corner.met() ? Target.State.MET : Target.State.NOT_MET).label(), number(run.loadAverage(), 2));
        }
        return table.toString();
    }

    private static String millis(Duration duration) {
        return number(duration.toNanos() / 1e6, 1) + " ms";
    }

    private static MarkdownTable streams(TenantCornersRun.Result result) {
        MarkdownTable table = SchedulerReport.streamsTable();
        for (TenantCornersRun.Corner corner : result.corners()) {
            for (GateCase.StreamResult stream : corner.run().streams()) {
                SchedulerReport.streamRow(table, corner.run(), stream, stream.name());
            }
        }
        return table;
    }
}
