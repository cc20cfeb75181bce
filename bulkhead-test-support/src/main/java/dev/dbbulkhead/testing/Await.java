package dev.dbbulkhead.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a state that another thread is about to reach (a waiter parked, a permit back). Only the state
 * is asserted, never how long it took; the limit only turns a hang into a failure with a message.
 */
public final class Await {

    private static final Duration LIMIT = Duration.ofSeconds(30);

    private Await() {
    }

    /** Returns once {@code reached} holds; fails naming {@code state} if it never does. */
    public static void until(String state, BooleanSupplier reached) {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!reached.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Not reached within " + LIMIT + ": " + state);
            }
            LockSupport.parkNanos(100_000);
        }
    }
}
