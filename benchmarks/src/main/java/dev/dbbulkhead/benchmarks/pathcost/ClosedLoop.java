package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Callers that share one application, each crediting a random account as soon as its previous call returned, until
 * closed. A closed loop: the callers' number, not an arrival rate, sets the load, so that the mean time per call is
 * wall time × callers / calls. The counts are {@link LongAdder}s, so that counting adds no contended word of its own
 * to the paths being compared.
 *
 * <p>Each caller also keeps its own count of returned calls and the longest call since the last reading, each in a slot
 * of its own cache line: a caller that made no call in a window, or a call that took seconds, is what a mean per call
 * hides — a caller held away from the pool while the others run lowers no throughput, and it is a request stalled.
 */
final class ClosedLoop implements AutoCloseable {

    private final LongAdder calls = new LongAdder();
    private final LongAdder errors = new LongAdder();
    /** Longs between two callers' slots: 128 bytes, so that no two callers write one cache line. */
    private static final int SLOT_STRIDE = 16;
    private final AtomicLongArray returnedByCaller;
    private final AtomicLongArray longestCallByCaller;
    private final AtomicReference<RuntimeException> firstError = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Callers callers;
    private volatile boolean stopping;

    private ClosedLoop(Callers callers) {
        this.callers = callers;
        this.returnedByCaller = new AtomicLongArray(callers.count() * SLOT_STRIDE);
        this.longestCallByCaller = new AtomicLongArray(callers.count() * SLOT_STRIDE);
    }

    /** Starts {@code callers} on {@code application}; they run until {@link #close()}. */
    static ClosedLoop start(PathApplication application, Callers callers) {
        ClosedLoop loop = new ClosedLoop(callers);
        for (int i = 0; i < callers.count(); i++) {
            int slot = i * SLOT_STRIDE;
            loop.threads.add(callers.kind().start("caller-" + callers.token() + "-" + i,
                    () -> loop.call(application, slot)));
        }
        return loop;
    }

    private void call(PathApplication application, int slot) {
        while (!stopping) {
            long began = System.nanoTime();
            try {
                application.credit(BenchDatabase.randomAccount());
                calls.increment();
            } catch (RuntimeException failure) {
                // Sized so that nobody is refused or times out: a failure is a fault of the run, reported, not hidden.
                errors.increment();
                firstError.compareAndSet(null, failure);
            }
            long took = System.nanoTime() - began;
            returnedByCaller.setRelease(slot, returnedByCaller.getPlain(slot) + 1);
            if (took > longestCallByCaller.getOpaque(slot)) {
                longestCallByCaller.accumulateAndGet(slot, took, Math::max);
            }
        }
    }

    Callers callers() {
        return callers;
    }

    /** Calls that returned since the start. */
    long calls() {
        return calls.sum();
    }

    /** Each caller's calls that returned or threw since the start, in the callers' order. */
    long[] returnedByCaller() {
        long[] returned = new long[callers.count()];
        for (int i = 0; i < returned.length; i++) {
            returned[i] = returnedByCaller.getAcquire(i * SLOT_STRIDE);
        }
        return returned;
    }

    /** The longest call that returned or threw since the last time this was asked, in nanoseconds; 0 if none did. */
    long takeLongestCallNanos() {
        long longest = 0;
        for (int i = 0; i < callers.count(); i++) {
            longest = Math.max(longest, longestCallByCaller.getAndSet(i * SLOT_STRIDE, 0));
        }
        return longest;
    }

    /** Calls that threw since the start. */
    long errors() {
        return errors.sum();
    }

    /** The first call that threw, if any did. */
    Optional<RuntimeException> firstError() {
        return Optional.ofNullable(firstError.get());
    }

    /** Tells the callers to stop and waits until each has finished its last call. */
    @Override
    public void close() {
        stopping = true;
        try {
            for (Thread thread : threads) {
                thread.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while the callers stopped", e);
        }
    }
}
