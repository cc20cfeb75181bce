package dev.dbbulkhead.benchmarks.load;

import java.time.Duration;

/**
 * How long the PostgreSQL scenarios run: the full suite measures, the smoke run only proves the harness works.
 *
 * @param window            how long each run offers load
 * @param poolTimeout       HikariCP's connection timeout for every pool
 * @param calibrationCalls  how many unloaded transactions measure the transaction's cost
 */
public record ScenarioSettings(Duration window, Duration poolTimeout, int calibrationCalls) {

    /** What the report is made of: seconds of load per run, HikariCP's 2 s connection timeout. */
    public static ScenarioSettings full() {
        return new ScenarioSettings(Duration.ofSeconds(5), Duration.ofSeconds(2), 200);
    }

    /** For CI: a fraction of a second per run and HikariCP's shortest timeout; numbers mean nothing. */
    public static ScenarioSettings smoke() {
        return new ScenarioSettings(Duration.ofMillis(400), Duration.ofMillis(250), 10);
    }
}
