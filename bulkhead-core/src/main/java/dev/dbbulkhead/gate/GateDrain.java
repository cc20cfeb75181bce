package dev.dbbulkhead.gate;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The end of a gate's shutdown: opened once the gate is shutting down and no operation runs, waits or borrows in it
 * any more. The gate keeps the shutdown flag itself, the one its fast path reads, and asks here only once it is set.
 */
final class GateDrain {

    private final CountDownLatch drained = new CountDownLatch(1);
    private final AdmissionCounts counts;
    private final PoolPlaces places;

    GateDrain(AdmissionCounts counts, PoolPlaces places) {
        this.counts = counts;
        this.places = places;
    }

    /**
     * For a gate shutting down: opens the drain when the gate holds nothing. Called after places were given back, and
     * by the shutdown after setting its flag: the last operation out, or the shutdown, opens it.
     */
    void signalIfEmpty() {
        if (counts.snapshot() == 0L && places.borrowed() == 0) {
            drained.countDown();
        }
    }

    /** Waits at most {@code timeout} for the drain; whether it came. */
    boolean await(Duration timeout) throws InterruptedException {
        return drained.await(Objects.requireNonNull(timeout, "timeout").toNanos(), TimeUnit.NANOSECONDS);
    }

    boolean isDrained() {
        return drained.getCount() == 0;
    }
}
