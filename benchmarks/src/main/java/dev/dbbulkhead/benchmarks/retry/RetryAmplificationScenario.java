package dev.dbbulkhead.benchmarks.retry;

import dev.dbbulkhead.benchmarks.load.Arrivals;
import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.Occupancy;
import dev.dbbulkhead.benchmarks.load.OpenLoopLoad;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.Budget;
import dev.dbbulkhead.benchmarks.overload.OverloadScenario;
import dev.dbbulkhead.retry.RetryBackoff;
import dev.dbbulkhead.retry.RetryBudgetConfig;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Scenario 7: clients that retry on 503 under a sustained {@value OverloadScenario#OVERLOAD_FACTOR}× overload, over
 * real HTTP against a Spring MVC application with one gated workload on PostgreSQL. Two runs on the same
 * application, one after the other: clients that retry a refused request up to {@value #MAX_ATTEMPTS} attempts in
 * all, then the same clients asking one shared {@link dev.dbbulkhead.retry.RetryBudget} of the default
 * configuration before each retry. Both back off with {@link RetryBackoff}'s full jitter at its default base and
 * cap; neither waits for Retry-After, as clients that retry "up to N times" seldom do.
 */
public final class RetryAmplificationScenario {

    /** B, Q and the queue wait of the workload; its pool is as large as B. */
    public static final Budget BUDGET = new Budget(2, 2, Duration.ofMillis(100));
    /** The server-side sleep of each admitted request's transaction. */
    public static final Duration HOLD = Duration.ofMillis(50);
    /** Attempts per request, the first included, for both kinds of client. */
    public static final int MAX_ATTEMPTS = 3;
    /** The clients' budget: the defaults, as an application that adopts the budget would start with. */
    public static final RetryBudgetConfig RETRY_BUDGET = RetryBudgetConfig.defaults();
    /** The target of the budget: requests sent at most this many times the first attempts. */
    public static final double AMPLIFICATION_TARGET = 1.2;

    private RetryAmplificationScenario() {
    }

    /**
     * How long each part runs: a warm-up without a budget (not reported), then each run's window of arrivals, then
     * at most the drain for the requests still inside.
     */
    public record Timing(Duration warmUp, Duration window, Duration drain) {

        /** Counts in the thousands per run: 10,000 first attempts in each window. */
        public static final Timing FULL = new Timing(Duration.ofSeconds(5), Duration.ofSeconds(25),
                Duration.ofSeconds(5));
        /** For trying the harness: a second a run; the counts are too small for the budget's floor. */
        public static final Timing QUICK = new Timing(Duration.ofMillis(300), Duration.ofSeconds(1),
                Duration.ofSeconds(1));
    }

    /** The runs, in the order run, and when they ran. */
    public record Result(Timing timing, List<AmplificationRun> runs, Instant began, Instant ended) {
    }

    /**
     * {@value OverloadScenario#OVERLOAD_FACTOR}× what B connections commit of the transaction's sleep alone, as
     * first attempts arriving steadily.
     */
    public static double firstAttemptsPerSecond() {
        return OverloadScenario.OVERLOAD_FACTOR * nominalCapacity();
    }

    /** What the gate can serve at most: B transactions of the server-side sleep at a time. */
    public static double nominalCapacity() {
        return BUDGET.maxConcurrent() / (HOLD.toNanos() / 1e9);
    }

    /** The most requests the budget lets the clients send per first attempt, its floor spread over the offered load. */
    public static double budgetBound() {
        return 1 + RETRY_BUDGET.percentCanRetry() + RETRY_BUDGET.minRetriesPerSecond() / firstAttemptsPerSecond();
    }

    /** Runs the warm-up, then the clients without a budget, then with it, on one application. */
    public static Result run(Timing timing) throws InterruptedException {
        Instant began = Instant.now();
        BenchDatabase database = BenchDatabase.create();
        try (OrdersWebApplication application = OrdersWebApplication.start(database.database(), BUDGET, HOLD);
             HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            load(application, http, RetryRule.attemptsOnly(), timing.warmUp(), timing.drain());
            List<AmplificationRun> runs = List.of(
                    load(application, http, RetryRule.attemptsOnly(), timing.window(), timing.drain()),
                    load(application, http, RetryRule.budgeted(RETRY_BUDGET), timing.window(), timing.drain()));
            return new Result(timing, runs, began, Instant.now());
        }
    }

    private static AmplificationRun load(OrdersWebApplication application, HttpClient http, RetryRule rule,
                                         Duration window, Duration drain) throws InterruptedException {
        RunConditions.settleHeap();
        AttemptCounts counts = new AttemptCounts();
        RetryingCaller caller = new RetryingCaller(http, application.orders(), MAX_ATTEMPTS,
                new RetryBackoff(RETRY_BUDGET), rule, counts);
        LoadStream clients = new LoadStream(rule.label(), Arrivals.steady(firstAttemptsPerSecond()), caller::call);
        CallLog log = OpenLoopLoad.run(List.of(clients), window, drain, new Occupancy()).get(rule.label());
        return AmplificationRun.of(rule.label(), counts, log, window, RunConditions.loadAverage());
    }
}
