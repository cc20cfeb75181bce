package dev.dbbulkhead.gate;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A monotonic clock that a test moves by hand, for a gate's CoDel queue. One read by a chosen thread may first run
 * a step of the test ({@link #onNextReadBy}): how a test puts another thread's action between two steps of a waiter.
 */
final class ManualClock implements LongSupplier {

    private final AtomicLong nanos = new AtomicLong();
    private volatile Thread hookedReader;
    private volatile Runnable hook;

    @Override
    public long getAsLong() {
        Runnable step = hook;
        if (step != null && Thread.currentThread() == hookedReader) {
            hook = null;
            step.run();
        }
        return nanos.get();
    }

    /** Moves the clock to {@code sinceStart} after its start; never back. */
    void set(Duration sinceStart) {
        long target = sinceStart.toNanos();
        if (target < nanos.get()) {
            throw new IllegalArgumentException("a monotonic clock never goes back: " + sinceStart);
        }
        nanos.set(target);
    }

    /** Runs {@code step} on {@code reader}'s next read, before the time is read. */
    void onNextReadBy(Thread reader, Runnable step) {
        hookedReader = reader;
        hook = step;
    }
}
