package dev.dbbulkhead.benchmarks.load;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * Who is where during a run: callers in flight (started, not yet returned) and callers executing (holding a
 * connection, inside the transaction's work). The difference is the callers parked somewhere — in a guard's
 * queue, in the pool's wait — holding a thread and its request state while doing nothing.
 */
public final class Occupancy {

    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger executing = new AtomicInteger();
    private final LongAccumulator parkedPeak = new LongAccumulator(Math::max, 0);
    private final LongAccumulator heapPeak = new LongAccumulator(Math::max, 0);
    private final List<long[]> parkedSamples = new ArrayList<>();
    private long executingSampled;
    private int samplesWhileLoaded;

    /** Runs the transaction's work, counted as executing. */
    public <T> T executing(SqlCall<T> work) throws SQLException {
        executing.incrementAndGet();
        try {
            return work.call();
        } finally {
            executing.decrementAndGet();
        }
    }

    void arrived() {
        int parked = inFlight.incrementAndGet() - executing.get();
        parkedPeak.accumulate(parked);
    }

    void left() {
        inFlight.decrementAndGet();
    }

    int inFlight() {
        return inFlight.get();
    }

    /** Called by the sampler thread alone. */
    void sample(long atNanos) {
        int executingNow = executing.get();
        long parked = Math.max(0, inFlight.get() - executingNow);
        if (inFlight.get() > 0) {
            executingSampled += executingNow;
            samplesWhileLoaded++;
        }
        parkedPeak.accumulate(parked);
        heapPeak.accumulate(MEMORY.getHeapMemoryUsage().getUsed());
        parkedSamples.add(new long[] {atNanos, parked});
    }

    /** The most callers parked at once, seen at an arrival or a sample. */
    public long parkedPeak() {
        return parkedPeak.get();
    }

    /**
     * How many callers were executing on average while any caller was in flight: how busy the guard kept the
     * connections. At P, the guard wastes no capacity and any shortfall in commits is the transactions' own
     * slowness (CPU, database); below P, the guard left connections idle.
     */
    public double meanExecuting() {
        return samplesWhileLoaded == 0 ? 0 : (double) executingSampled / samplesWhileLoaded;
    }

    /** The most heap in use at a sample, garbage included. */
    public long heapPeakBytes() {
        return heapPeak.get();
    }

    /** (ns since the run began, callers parked) pairs, one per sample; read after the run. */
    public List<long[]> parkedSamples() {
        return parkedSamples;
    }

    /** Work done while holding a connection. */
    @FunctionalInterface
    public interface SqlCall<T> {
        T call() throws SQLException;
    }
}
