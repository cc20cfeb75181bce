package dev.dbbulkhead.benchmarks.scheduler;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;
import static dev.dbbulkhead.benchmarks.report.MarkdownTable.percent;

import dev.dbbulkhead.benchmarks.lending.BorrowersScenario;
import dev.dbbulkhead.benchmarks.lending.LendingRun;
import dev.dbbulkhead.benchmarks.lending.LendingScenario;
import dev.dbbulkhead.benchmarks.load.Outcome;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import dev.dbbulkhead.gate.AdmissionRules;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The scheduler run's report, scheduler.md: the targets, each case's gate and streams, the capacities, the machine. */
public final class SchedulerReport {

    public static final String FILE = "scheduler.md";

    private SchedulerReport() {
    }

    /** Writes {@value #FILE} into {@code out} and returns its text. */
    public static String write(SchedulerRun.Result result, String environment, Path out) throws IOException {
        StringBuilder text = new StringBuilder("### Targets\n\n").append(targets(result)).append('\n')
                .append("### Cases\n\n").append(setup(result)).append("\n\n").append(cases(result)).append('\n')
                .append("### Streams\n\n").append(streams(result)).append('\n')
                .append("### Lending\n\n").append(lending(result)).append('\n')
                .append("### Two borrowers\n\n").append(borrowers(result)).append('\n');
        return finish(text, runs(result), result.began(), result.ended(), environment, out.resolve(FILE));
    }

    /**
     * Ends a report of gate cases: the first unexpected failure of each stream that had one, when the run went, the
     * machine; writes it to {@code file} and returns its text.
     */
    static String finish(StringBuilder text, List<GateCase.Result> runs, Instant began, Instant ended,
                         String environment, Path file) throws IOException {
        for (GateCase.Result run : runs) {
            for (GateCase.StreamResult stream : run.streams()) {
                if (stream.firstFailure() != null) {
                    text.append("First unexpected failure of ").append(run.name()).append(" / ").append(stream.name())
                            .append(": `").append(stream.firstFailure()).append("`\n\n");
                }
            }
        }
        text.append("Run from ").append(began).append(" to ").append(ended).append(".\n\n").append(environment);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return text.toString();
    }

    /** The targets alone, for the console. */
    public static String targets(SchedulerRun.Result result) {
        MarkdownTable table = new MarkdownTable("target", "measured", "met?");
        for (Target target : result.targets()) {
            table.row(target.target(), target.measured(), target.state().label());
        }
        return table.toString();
    }

    private static String setup(SchedulerRun.Result result) {
        return "Capacity measured first: 10 callers back to back on a pool of 10, no gate, "
                + result.timing().capacityWindow().toMillis() + " ms (measured twice, the first to warm"
                + " up): " + number(result.closedLoop(), 0) + " commits/s; then a gate of B = 10 without rules offered"
                + " 3 × that for " + result.timing().capacityWindow().toMillis() + " ms served "
                + number(result.capacity(), 0) + " commits/s, the capacity every case but the two tenants' is sized"
                + " by (what the gated workload can serve, its hand-overs included). Each case: a"
                + " fresh pool of B connections, one gate, open-loop arrivals for "
                + result.timing().window().toMillis() + " ms, each call `pg_sleep(" + GateCase.HOLD.toMillis()
                + " ms)` + a one-row UPDATE + commit; the two-tenant cases a `pg_sleep` drawn each call from half to"
                + " one and a half times " + SchedulerRun.TWO_TENANTS_HOLD.toMillis() + " ms, for "
                + result.timing().twoTenantsWindow().toMillis() + " ms, their load set from B / "
                + SchedulerRun.TWO_TENANTS_HOLD.toMillis() + " ms; the requests of three operations wait "
                + SchedulerRun.BETWEEN_OPERATIONS.toMillis() + " ms between their operations. Streams of one case begin staggered by a fraction of their period. Busy: the gate's"
                + " `active()` sampled every " + GateWatch.PERIOD_MICROS / 1000 + " ms during the arrivals, as a"
                + " share of B. A place is free when fewer than B run and nobody waits (read as the refusal reaches"
                + " its caller).";
    }

    private static MarkdownTable cases(SchedulerRun.Result result) {
        MarkdownTable table = new MarkdownTable("case", "B", "Q", "queue wait", "rules", "goodput/s", "busy",
                "all B taken", "`OVER_FAIR_SHARE` (while a place was free)", "load average");
        for (GateCase.Result run : runs(result)) {
            table.row(run.name(), run.budget().maxConcurrent(), run.budget().maxQueued(),
                    run.budget().queueWait().toMillis() + " ms", rules(run.rules()), number(run.goodput(), 0),
                    percent(run.busy()), percent(run.allTaken()),
                    run.overFairShare() + " (" + run.overFairShareWhileFree() + ")", number(run.loadAverage(), 2));
        }
        return table;
    }

    private static MarkdownTable streams(SchedulerRun.Result result) {
        MarkdownTable table = streamsTable();
        for (GateCase.Result run : runs(result)) {
            for (GateCase.StreamResult stream : run.streams()) {
                String name = stream.name() + (run.name().startsWith("room") && HashedKeySlots.collides(stream.name(),
                        result.roomKeys()) ? " (shares a hashed slot)" : "");
                streamRow(table, run, stream, name);
            }
        }
        for (SchedulerRun.RequestsResult requests : List.of(result.requestsFifo(), result.requestsInProgressFirst())) {
            table.row(requests.run().name(), "operations", "", requests.operationsCommitted()
                    + requests.operationsRefused(), requests.operationsCommitted(), "", requests.operationsRefused()
                    + " refused", "");
        }
        return table;
    }

    private static String lending(SchedulerRun.Result result) {
        StringBuilder text = new StringBuilder("`LendingScenario`: `orders` (B = " + LendingScenario.ORDERS_B
                + ") lends, `reports` (B = " + LendingScenario.REPORTS_B + ", Q = 0) may borrow "
                + LendingScenario.REPORTS_BORROW + "; phase A " + result.timing().lending().phaseA().toSeconds()
                + " s with `reports` alone at " + number(LendingScenario.REPORTS_OVERLOAD, 0)
                + " × its B, phase B " + result.timing().lending().phaseB().toSeconds()
                + " s with `orders` back; without lending, then with. With rules, `reports` has"
                + " `fairShares(true)` and its calls take " + LendingScenario.REPORTS_TENANTS
                + " keys in turn.\n\n");
        MarkdownTable table = new MarkdownTable("borrower's rules", "run", "reports/s alone", "orders p99 from 1 s",
                "server peak", "load average");
        if (result.lendingWithRules().refusedBecause() != null) {
            table.row("fair shares", "not supported by this build", "", "", "", "");
        } else {
            lendingRows(table, "fair shares", result.lendingWithRules().detail());
        }
        lendingRows(table, "none", result.lendingWithoutRules());
        return text.append(table).toString();
    }

    private static String borrowers(SchedulerRun.Result result) {
        StringBuilder text = new StringBuilder("`BorrowersScenario`: `orders` (B = " + BorrowersScenario.ORDERS_B
                + ") lends and offers no load; `" + BorrowersScenario.REPORTS + "` (B = " + BorrowersScenario.REPORTS_B
                + ") and `" + BorrowersScenario.EXPORTS + "` (B = " + BorrowersScenario.EXPORTS_B
                + "), Q = 8 and a 250 ms queue wait each, may each borrow " + BorrowersScenario.ORDERS_B
                + "; each offered what Σ B serves of the sleep alone, for " + result.timing().window().toSeconds()
                + " s; without lending, then with.\n\n");
        MarkdownTable table = new MarkdownTable("run", "reports/s", "exports/s", "reports' share", "server peak",
                "load average");
        BorrowersScenario.Result borrowers = result.borrowers();
        for (BorrowersScenario.Run run : List.of(borrowers.without(), borrowers.with())) {
            table.row(run.label(), number(run.reportsPerSecond(), 0), number(run.exportsPerSecond(), 0),
                    percent(run.reportsShare()), run.serverPeak(), number(run.loadAverage(), 2));
        }
        return text.append(table).toString();
    }

    private static void lendingRows(MarkdownTable table, String rules, LendingScenario.Result detail) {
        for (LendingRun run : List.of(detail.without(), detail.with())) {
            table.row(rules, run.label(), number(run.reportsGoodputAlone(), 0),
                    number(run.ordersAfterSettling().p99(), 1) + " ms", run.serverPeak(), number(run.loadAverage(), 2));
        }
    }

    /** The table of every stream of some gate cases, a row each ({@link #streamRow}). */
    static MarkdownTable streamsTable() {
        return new MarkdownTable("case", "stream", "offered/s", "calls", "committed", "success", "refusals", "other");
    }

    /** How one stream's calls ended, as {@code name}. */
    static void streamRow(MarkdownTable table, GateCase.Result run, GateCase.StreamResult stream, String name) {
        int other = stream.counts().getOrDefault(Outcome.FAILED, 0) + stream.counts().getOrDefault(Outcome.ABANDONED, 0);
        table.row(run.name(), name, number(stream.perSecond(), 1), stream.offered(), stream.committed(),
                percent(stream.success()), SchedulerTargets.refusals(stream), other);
    }

    private static List<GateCase.Result> runs(SchedulerRun.Result result) {
        List<GateCase.Result> runs = new ArrayList<>(List.of(result.noisy(), result.noisyNoRules(),
                result.twoTenants32(), result.twoTenantsHowTo(), result.roomShares(), result.roomNoRules(),
                result.keyless(), result.criticalityLarge(), result.criticalitySmall()));
        runs.add(result.requestsFifo().run());
        runs.add(result.requestsInProgressFirst().run());
        return runs;
    }

    static String rules(AdmissionRules rules) {
        if (rules.isNone()) {
            return "none (FIFO)";
        }
        List<String> parts = new ArrayList<>();
        if (rules.criticalReserve() > 0) {
            parts.add("critical reserve " + rules.criticalReserve());
        }
        if (rules.sheddableReserve() > 0) {
            parts.add("sheddable reserve " + rules.sheddableReserve());
        }
        if (rules.fairShares()) {
            parts.add("fair shares");
        }
        if (rules.inProgressFirst()) {
            parts.add("in progress first");
        }
        return String.join(", ", parts);
    }
}
