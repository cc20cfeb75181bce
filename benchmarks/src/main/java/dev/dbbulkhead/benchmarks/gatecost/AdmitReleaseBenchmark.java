package dev.dbbulkhead.benchmarks.gatecost;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Admit + release of an empty operation on platform threads, all sharing one guard. Run with 1 thread
 * (uncontended) and with 2 and 8 ({@code -t}): with more threads, each op's time is per thread, contention included.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AdmitReleaseBenchmark extends WideGuardState {

    @Benchmark
    public Object admitRelease() {
        return guard.admitRelease();
    }
}
