package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * One fork of the load harness: a JVM of its own for one {@link UserPath}, as a JMH fork is, so that one path's JIT
 * decisions, heap and database backends do not carry over to the next. {@link PathCostRun} starts it as
 * {@code java -cp <classpath> dev.dbbulkhead.benchmarks.pathcost.PathLoadFork <PATH> <settings>}, with the options
 * of {@link LoadSettings#arguments()}; it prints one {@link IterationResult} line a measured iteration on its
 * standard output.
 *
 * <p>The fork starts PostgreSQL and the path's application and warms up: 8 platform callers, then each caller
 * configuration in turn, so that the JIT has compiled the waiting paths too before anything is measured. It then runs
 * each caller configuration as a closed loop: the callers start, settle, are measured for a number of consecutive
 * windows, and are stopped and joined before the next configuration starts.
 */
public final class PathLoadFork {

    private PathLoadFork() {
    }

    public static void main(String[] args) {
        int status = 0;
        try {
            UserPath path = UserPath.valueOf(args[0]);
            LoadSettings settings = LoadSettings.fromArguments(List.of(args).subList(1, args.length));
            measure(path, settings, result -> System.out.println(result.toLine()));
        } catch (RuntimeException failure) {
            failure.printStackTrace();
            status = 1;
        }
        System.out.flush();
        // The embedded PostgreSQL stops in a shutdown hook; HikariCP may leave non-daemon threads.
        System.exit(status);
    }

    /** Measures {@code path} on a fresh schema and hands each iteration's result to {@code results}. */
    static void measure(UserPath path, LoadSettings settings, Consumer<IterationResult> results) {
        BenchDatabase database = BenchDatabase.create();
        try (PathApplication application = PathApplication.start(path, database.database())) {
            ServerCpu server = ServerCpu.of(database.database());
            for (Callers warming : settings.warmUpCallers()) {
                try (ClosedLoop warmUp = ClosedLoop.start(application, warming)) {
                    pause(settings.warmUpShare());
                    reportErrors(path, warmUp);
                }
            }
            for (Callers callers : settings.callers()) {
                try (ClosedLoop loop = ClosedLoop.start(application, callers)) {
                    pause(settings.settle());
                    Reading start = Reading.take(loop, server);
                    for (int iteration = 1; iteration <= settings.iterations(); iteration++) {
                        pause(settings.iterationTime());
                        Reading end = Reading.take(loop, server);
                        results.accept(start.until(end, path, callers, iteration));
                        start = end;
                    }
                    reportErrors(path, loop);
                }
            }
        }
    }

    /** The results count failed calls; the first failure's stack trace says why. */
    private static void reportErrors(UserPath path, ClosedLoop loop) {
        loop.firstError().ifPresent(failure -> {
            System.err.println(path + ", " + loop.callers().label() + ": " + loop.errors()
                    + " calls failed, the first:");
            failure.printStackTrace();
        });
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while the callers ran", e);
        }
    }
}
