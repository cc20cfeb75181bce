package dev.dbbulkhead.benchmarks.gatecost;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One refusal: the guard's only permit is held by an {@link Occupant}, and the measured call is refused at once
 * (no wait is configured, so Resilience4j refuses without waiting too). {@code stackDepth} frames are put under
 * the call first: a refusal that fills in its stack trace pays for every frame, and a server thread is deep.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RejectionBenchmark {

    @Param({"SEMAPHORE", "NAIVE_TWO_SEMAPHORES", "DB_BULKHEAD", "DB_BULKHEAD_STACK_TRACE", "RESILIENCE4J",
            "RESILIENCE4J_STACKLESS", "SPRING_THROTTLE_INTERCEPTOR", "SPRING_CONCURRENCY_LIMIT"})
    public Contender contender;

    /** Extra frames below the call; 150 is about what a Spring MVC request on Tomcat has under a service. */
    @Param({"0", "150"})
    public int stackDepth;

    private GuardUnderTest guard;
    private Occupant occupant;

    @Setup
    public void setUp() throws InterruptedException {
        guard = contender.create(Contender.Shape.SINGLE);
        occupant = Occupant.enter(guard);
        if (guard.admitRelease() == null) {
            throw new IllegalStateException(contender + " admitted a call while its only permit was held");
        }
    }

    @TearDown
    public void tearDown() throws InterruptedException {
        occupant.close();
        guard.close();
    }

    @Benchmark
    public Object refuse() {
        return descend(stackDepth);
    }

    private Object descend(int frames) {
        return frames == 0 ? guard.admitRelease() : descend(frames - 1);
    }
}
