package dev.dbbulkhead.benchmarks.gatecost;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;

/**
 * A platform thread that enters a guard and stays inside until closed, so that the guard's only permit is taken
 * and every measured call is refused. A thread of its own because a gate permit belongs to the thread that took it.
 */
public final class Occupant implements AutoCloseable {

    private final CountDownLatch inside = new CountDownLatch(1);
    private final Semaphore leave = new Semaphore(0);
    private final Thread thread;

    private Occupant(GuardUnderTest guard) {
        thread = Thread.ofPlatform().daemon().name("guard-occupant").start(() -> guard.holdWhile(() -> {
            inside.countDown();
            leave.acquireUninterruptibly();
        }));
    }

    /** Returns once the occupant holds the guard's permit. */
    public static Occupant enter(GuardUnderTest guard) throws InterruptedException {
        Occupant occupant = new Occupant(guard);
        occupant.inside.await();
        return occupant;
    }

    /** Lets the occupant leave and waits until it has released the permit. */
    @Override
    public void close() throws InterruptedException {
        leave.release();
        thread.join();
    }
}
