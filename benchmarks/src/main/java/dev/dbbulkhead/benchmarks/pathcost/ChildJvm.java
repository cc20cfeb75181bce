package dev.dbbulkhead.benchmarks.pathcost;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;

import dev.dbbulkhead.benchmarks.process.ChildProcesses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a {@link PathLoadFork} in a JVM of its own, with the same {@code java} as this one and the classpath of
 * the build it measures, and collects its results. The fork's other output, standard output and error alike, goes to
 * this JVM's standard error, each line marked with the fork, so that a failure deep in a fork is seen where it
 * happened.
 */
final class ChildJvm {

    /** System properties that configure the starter ({@code -Ddb.bulkhead.ungated.mode=off}) reach the forks. */
    private static final String PASSED_PROPERTIES = "db.bulkhead.";

    private ChildJvm() {
    }

    /** Runs {@code run} from {@code classpath} and returns its iterations; a fork that fails ends the run. */
    static List<IterationResult> run(ForkRun run, String classpath, LoadSettings settings) {
        List<String> command = new ArrayList<>();
        command.add(ChildProcesses.java());
        System.getProperties().stringPropertyNames().stream().filter(name -> name.startsWith(PASSED_PROPERTIES))
                .sorted().forEach(name -> command.add("-D" + name + "=" + System.getProperty(name)));
        command.addAll(List.of("-cp", classpath, PathLoadFork.class.getName(), run.path().name()));
        command.addAll(settings.arguments());
        String mark = "[" + run.tag() + "] ";
        List<IterationResult> results = new ArrayList<>();
        try {
            Process fork = new ProcessBuilder(command).start();
            fork.getOutputStream().close();
            Thread errors = Thread.ofPlatform().daemon().start(
                    () -> ChildProcesses.lines(fork.getErrorStream(), line -> System.err.println(mark + line)));
            ChildProcesses.lines(fork.getInputStream(), line -> {
                if (IterationResult.isResultLine(line)) {
                    IterationResult result = IterationResult.parse(line);
                    results.add(result);
                    System.err.println(mark + progress(result));
                } else {
                    System.err.println(mark + line);
                }
            });
            int status = fork.waitFor();
            errors.join();
            if (status != 0) {
                throw new IllegalStateException("Fork " + run.tag() + " exited with status " + status);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not run fork " + run.tag(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while fork " + run.tag() + " ran", e);
        }
        return results;
    }

    private static String progress(IterationResult result) {
        return result.callers().label() + ", iteration " + result.iteration() + ": "
                + number(result.microsPerCall(), 1) + " µs/call, " + number(result.callsPerSecond(), 0) + " calls/s, "
                + result.errors() + " errors";
    }
}
