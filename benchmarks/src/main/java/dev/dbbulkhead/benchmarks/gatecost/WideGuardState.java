package dev.dbbulkhead.benchmarks.gatecost;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One guard per contender, shared by all benchmark threads, wide enough that nobody is refused. Every contender
 * runs in a fork of its own, so each call site sees one guard class.
 */
@State(Scope.Benchmark)
public abstract class WideGuardState {

    @Param({"SEMAPHORE", "NAIVE_TWO_SEMAPHORES", "DB_BULKHEAD", "RESILIENCE4J", "SPRING_THROTTLE_INTERCEPTOR",
            "SPRING_CONCURRENCY_LIMIT"})
    public Contender contender;

    protected GuardUnderTest guard;

    @Setup
    public void setUp() {
        guard = contender.create(Contender.Shape.WIDE);
    }

    @TearDown
    public void tearDown() {
        guard.close();
    }
}
