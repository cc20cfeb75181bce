package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * One real transaction — credit a random one of 10,000 account rows on PostgreSQL — through each {@link UserPath},
 * by 1, 8 and 32 concurrent callers sharing the application. Time per call per caller. The report's figures come
 * from {@link PathCostRun}'s load harness; this benchmark is for JMH's profilers ({@code -prof gc},
 * {@code -prof jfr}) on one path and one number of callers.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class UserPathBenchmark {

    @Param
    public UserPath path;

    private PathApplication application;

    @Setup(Level.Trial)
    public void start() {
        application = PathApplication.start(path, BenchDatabase.create().database());
    }

    @TearDown(Level.Trial)
    public void stop() {
        application.close();
    }

    @Benchmark
    @Threads(1)
    public long oneCaller() {
        return application.credit(BenchDatabase.randomAccount());
    }

    @Benchmark
    @Threads(8)
    public long eightCallers() {
        return application.credit(BenchDatabase.randomAccount());
    }

    /** More callers than connections: 16 run, 16 wait in the gate (or Resilience4j, or HikariCP). */
    @Benchmark
    @Threads(32)
    public long thirtyTwoCallers() {
        return application.credit(BenchDatabase.randomAccount());
    }
}
