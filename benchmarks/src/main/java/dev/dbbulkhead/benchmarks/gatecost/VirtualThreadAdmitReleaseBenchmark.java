package dev.dbbulkhead.benchmarks.gatecost;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Admit + release on virtual threads. JMH's own threads are platform threads, so one JMH thread starts
 * {@code virtualThreads} virtual threads that share the guard, each doing its share of {@value #OPERATIONS}
 * admit + release pairs, and joins them. The score is wall time per pair: the virtual threads run on the
 * carrier pool (one carrier per core), so with 2 cores it is the throughput of the whole machine, inverted.
 * Starting and joining the threads (a few microseconds) is spread over the {@value #OPERATIONS} pairs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class VirtualThreadAdmitReleaseBenchmark extends WideGuardState {

    static final int OPERATIONS = 160_000;

    @Param({"2", "8"})
    public int virtualThreads;

    @Benchmark
    @OperationsPerInvocation(OPERATIONS)
    public int admitRelease() throws InterruptedException {
        int share = OPERATIONS / virtualThreads;
        AtomicInteger refused = new AtomicInteger();
        Thread[] threads = new Thread[virtualThreads];
        for (int i = 0; i < virtualThreads; i++) {
            threads[i] = Thread.ofVirtual().start(() -> {
                // Counting refusals (there should be none) keeps each call's result in use.
                int refusedHere = 0;
                for (int op = 0; op < share; op++) {
                    if (guard.admitRelease() != null) {
                        refusedHere++;
                    }
                }
                refused.addAndGet(refusedHere);
            });
        }
        for (Thread thread : threads) {
            thread.join();
        }
        return refused.get();
    }
}
