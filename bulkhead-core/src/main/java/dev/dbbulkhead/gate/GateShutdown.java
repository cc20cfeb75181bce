package dev.dbbulkhead.gate;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A gate's shutdown: the flag that, once set, refuses new work, and the drain that opens once the gate is shutting
 * down and no operation runs, waits or borrows in it any more. Kept apart from the gate's face so that the types that
 * admit and give back read and signal it here, not through the gate.
 */
final class GateShutdown {

    /** Set once by {@link #shutDown()}: from then on nothing new is admitted, and what was admitted before finishes. */
    private volatile boolean shuttingDown;
    private final CountDownLatch drained = new CountDownLatch(1);
    private final AdmissionCounts counts;
    private final PoolPlaces places;

    GateShutdown(AdmissionCounts counts, PoolPlaces places) {
        this.counts = counts;
        this.places = places;
    }

    /** Stops admitting new work, for good, and opens the drain if nothing is held. Calling it again does nothing more. */
    void shutDown() {
        shuttingDown = true;
        signalIfDrained();
    }

    boolean isShuttingDown() {
        return shuttingDown;
    }

    /**
     * Whether an admission of the thread whose record is {@code held} is refused by the shutdown: it is, unless it is
     * a later operation of a unit of work admitted before ({@link ThreadRecord#unitInProgress()}) — a graceful
     * shutdown lets the units in progress finish, and refuses only new ones.
     */
    boolean refuses(ThreadRecord held) {
        return shuttingDown && !held.unitInProgress();
    }

    /**
     * Opens the drain when the gate is shutting down and holds nothing. Called after places were given back, as
     * {@link #shutDown()} reads them after setting its flag: the last operation out, or the shutdown, opens it.
     */
    void signalIfDrained() {
        if (shuttingDown && counts.snapshot() == 0L && places.borrowed() == 0) {
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
