package dev.dbbulkhead.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

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
        until(state, reached, () -> null);
    }

    /**
     * Returns once {@code reached} holds; fails naming {@code state} and, when it gives one, what {@code seen} shows
     * then, so that a failure says where the state stood and not only that it never came.
     */
    public static void until(String state, BooleanSupplier reached, Supplier<? extends @Nullable Object> seen) {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!reached.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                Object shown = seen.get();
                throw new AssertionError("Not reached within " + LIMIT + ": " + state
                        + (shown == null ? "" : "; seen: " + shown));
            }
            LockSupport.parkNanos(100_000);
        }
    }
}
