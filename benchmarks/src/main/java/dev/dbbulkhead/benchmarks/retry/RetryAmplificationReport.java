package dev.dbbulkhead.benchmarks.retry;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;

import dev.dbbulkhead.benchmarks.load.Outcome;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import dev.dbbulkhead.benchmarks.report.ScenarioReport;
import dev.dbbulkhead.retry.RetryBudgetConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The retry-amplification scenario's report, retry-amplification.md: the setup, a row per run, the target marked
 * met or not, and the environment it ran in.
 */
public final class RetryAmplificationReport {

    static final String FILE = "retry-amplification.md";

    private RetryAmplificationReport() {
    }

    /** Writes {@value #FILE} into {@code out}; {@code environment} is the harness's description of the machine. */
    public static void write(RetryAmplificationScenario.Result result, String environment, Path out)
            throws IOException {
        StringBuilder text = new StringBuilder(setup(result)).append("\n\n");
        MarkdownTable runs = new MarkdownTable("clients", "first attempts", "retries", "retries refused by the budget",
                "sent / first attempts", "goodput (200s/s)", "503 answers", "requests ending refused",
                "success p50 / p99 / max ms", "failed", "abandoned", "load avg");
        for (AmplificationRun run : result.runs()) {
            runs.row(run.clients(), run.firstAttempts(), run.retries(), run.retriesRefused(),
                    number(run.amplification(), 3) + " ×", number(run.goodput(), 1), run.refusedAnswers(),
                    run.count(Outcome.REJECTED), ScenarioReport.triple(run.successes()), run.count(Outcome.FAILED),
                    run.count(Outcome.ABANDONED), number(run.loadAverage(), 2));
        }
        text.append(runs).append('\n').append(targets(result.runs()));
        for (AmplificationRun run : result.runs()) {
            if (run.firstFailure() != null) {
                text.append("\nFirst unexpected failure with ").append(run.clients()).append(": `")
                        .append(run.firstFailure()).append("`\n");
            }
        }
        text.append("\nRun from ").append(result.began()).append(" to ").append(result.ended()).append(".\n\n")
                .append(environment);
        Files.createDirectories(out);
        Files.writeString(out.resolve(FILE), text);
    }

    private static String setup(RetryAmplificationScenario.Result result) {
        RetryBudgetConfig budget = RetryAmplificationScenario.RETRY_BUDGET;
        RetryAmplificationScenario.Timing timing = result.timing();
        return "Workload `" + OrdersWebApplication.WORKLOAD + "`: B = "
                + RetryAmplificationScenario.BUDGET.maxConcurrent() + ", Q = "
                + RetryAmplificationScenario.BUDGET.maxQueued() + ", queue wait "
                + RetryAmplificationScenario.BUDGET.queueWait().toMillis() + " ms, a pool of "
                + RetryAmplificationScenario.BUDGET.maxConcurrent() + " connections; each admitted request runs"
                + " pg_sleep(" + RetryAmplificationScenario.HOLD.toMillis() + " ms) + a one-row UPDATE in its"
                + " transaction, behind `GET /orders` of a Spring MVC application on Tomcat (virtual threads): at most "
                + number(RetryAmplificationScenario.nominalCapacity(), 0) + " requests/s served. Offered: "
                + number(RetryAmplificationScenario.firstAttemptsPerSecond(), 0) + " first attempts/s, steadily,"
                + " open loop, for " + timing.window().toMillis() + " ms per run, each request on a virtual thread"
                + " of its own calling over HTTP (JDK HttpClient), after a " + timing.warmUp().toMillis()
                + " ms warm-up without a budget; requests still inside when the window ends are followed for up to "
                + timing.drain().toMillis() + " ms. Every request makes up to "
                + RetryAmplificationScenario.MAX_ATTEMPTS + " attempts; after a 503 it waits a full-jitter backoff"
                + " (uniform, up to " + budget.backoffBase().toMillis() + " ms before its first retry, twice that"
                + " before the next) and ignores Retry-After. With the budget, the clients share one `RetryBudget` of"
                + " `RetryBudgetConfig.defaults()` (" + number(100 * budget.percentCanRetry(), 0)
                + " % of first attempts + " + budget.minRetriesPerSecond() + " retries/s over a sliding "
                + budget.window().toSeconds() + " s), asked before each retry: at this load at most "
                + number(RetryAmplificationScenario.budgetBound(), 3) + " × the first attempts.";
    }

    private static MarkdownTable targets(List<AmplificationRun> runs) {
        MarkdownTable targets = new MarkdownTable("target", "measured", "met?");
        for (AmplificationRun run : runs) {
            String measured = number(run.amplification(), 3) + " × (" + run.sent() + " requests for "
                    + run.firstAttempts() + " first attempts)";
            if (run.clients().equals(RetryRule.BUDGETED)) {
                boolean met = run.amplification() <= RetryAmplificationScenario.AMPLIFICATION_TARGET;
                targets.row("with the budget, requests sent ≤ " + RetryAmplificationScenario.AMPLIFICATION_TARGET
                        + " × first attempts", measured, met ? "**met**" : "**not met**");
            } else {
                targets.row("without a budget: the amplification (no target)", measured, "–");
            }
        }
        return targets;
    }
}
