package dev.dbbulkhead.benchmarks.pathcost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.PostgresServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fork's measuring code, run in this JVM for a moment: every iteration saw calls, no failures and allocation, and
 * on Linux with the embedded server, the server's CPU. Never how fast.
 */
class PathCostForkSmokeTests {

    private static final LoadSettings TINY = new LoadSettings(Duration.ofMillis(200), Duration.ofMillis(100), 2,
            Duration.ofMillis(300), List.of(Callers.platform(1), Callers.virtual(2)));

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void eachIterationOfAForkCountsCallsAllocationAndTheServersCpu() {
        List<IterationResult> results = new ArrayList<>();

        PathLoadFork.measure(UserPath.STARTER_OBSERVED, TINY, results::add);

        assertThat(results).extracting(IterationResult::callers, IterationResult::iteration).containsExactly(
                tuple(Callers.platform(1), 1),
                tuple(Callers.platform(1), 2),
                tuple(Callers.virtual(2), 1),
                tuple(Callers.virtual(2), 2));
        assertThat(results).allSatisfy(result -> {
            assertThat(result.path()).isEqualTo(UserPath.STARTER_OBSERVED);
            assertThat(result.calls()).as("calls").isPositive();
            assertThat(result.errors()).as("errors").isZero();
            assertThat(result.wallNanos()).as("wall time").isPositive();
            assertThat(result.bytesPerCall()).as("bytes per call").isPositive();
        });
        if (embeddedServerOnLinux()) {
            assertThat(results).as("server CPU read").allSatisfy(result ->
                    assertThat(result.serverCpuNanos()).isNotEqualTo(ServerCpu.NOT_MEASURED));
            assertThat(results.stream().mapToLong(IterationResult::serverCpuNanos).sum()).as("server CPU")
                    .isPositive();
        }
    }

    private static boolean embeddedServerOnLinux() {
        return System.getProperty("os.name").startsWith("Linux")
                && PostgresFixture.server().origin() == PostgresServer.Origin.EMBEDDED;
    }
}
