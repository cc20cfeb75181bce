package dev.dbbulkhead.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The whole benchmark suite, one command: {@code java -jar benchmarks/target/benchmarks.jar SCENARIO [--out DIR]
 * [--quick] [the scenario's options]}, or {@code all} for every scenario of {@link Scenarios}, whose help
 * ({@code --help}) lists them. Each writes Markdown tables and PNG charts into the output folder (default
 * {@code docs/benchmarks}); {@code --quick} shortens JMH and runs the PostgreSQL scenarios for a fraction of a second:
 * for trying it out.
 */
public final class BenchmarkSuite {

    private BenchmarkSuite() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        int status = new SuiteCommand(Scenarios.registered(), BenchmarkSuite::describeEnvironment)
                .run(List.of(args), System.out, System.err);
        // The embedded PostgreSQL stops in a shutdown hook; JMH and HikariCP may leave non-daemon threads.
        System.exit(status);
    }

    /**
     * Prints the environment, and writes it to environment.md when a scenario ran whose report leaves it there; the
     * others carry theirs in their own report, and leave the gate cost's environment.md alone.
     */
    private static void describeEnvironment(List<Scenario> ran, Path out) throws Exception {
        String environment = Scenarios.environment();
        if (ran.stream().anyMatch(Scenario::sharesEnvironment)) {
            Files.writeString(out.resolve("environment.md"), environment);
        }
        System.out.println(environment);
    }
}
