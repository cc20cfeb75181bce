package dev.dbbulkhead.gate;

import java.util.concurrent.Semaphore;

/**
 * A semaphore whose permit count can shrink without waiting: {@link #reducePermits(int)} may drive the
 * available count below zero, and permits released by running work pay the debt off first. That is how
 * a shrink takes effect for new arrivals at once while running work drains undisturbed.
 */
final class ResizableSemaphore extends Semaphore {

    private static final long serialVersionUID = 1L;

    ResizableSemaphore(int permits, boolean fair) {
        super(permits, fair);
    }

    /** Never blocks; the available count may become negative. */
    @Override
    public void reducePermits(int reduction) {
        super.reducePermits(reduction);
    }

    /** Adds permits for a positive delta, takes them away (without waiting) for a negative one. */
    void adjust(int delta) {
        if (delta > 0) {
            release(delta);
        } else if (delta < 0) {
            reducePermits(-delta);
        }
    }
}
