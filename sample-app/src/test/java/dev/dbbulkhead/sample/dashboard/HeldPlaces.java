package dev.dbbulkhead.sample.dashboard;

import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

/**
 * Places of a workload taken on purpose: operations admitted on virtual threads of their own, each held inside its
 * transaction until {@link #close()}, so that what the workload refuses meanwhile is known, not raced for.
 */
final class HeldPlaces implements AutoCloseable {

    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Thread> holders = new ArrayList<>();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

    private HeldPlaces() {
    }

    /** Takes {@code count} places of {@code workload} and returns once every one of them is held. */
    static HeldPlaces hold(BulkheadTemplate workload, int count) throws InterruptedException {
        HeldPlaces held = new HeldPlaces();
        CountDownLatch holding = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            held.holders.add(Thread.ofVirtual().start(() -> held.holdOne(workload, holding)));
        }
        holding.await();
        if (!held.failures.isEmpty()) {
            held.close();
        }
        return held;
    }

    private void holdOne(BulkheadTemplate workload, CountDownLatch holding) {
        try {
            workload.executeWithoutResult(status -> {
                holding.countDown();
                awaitRelease();
            });
        } catch (Throwable failure) {
            failures.add(failure);
            holding.countDown();
        }
    }

    private void awaitRelease() {
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while holding a place", e);
        }
    }

    /** Lets every held operation end, waits until they have given their places back, and fails if any failed. */
    @Override
    public void close() throws InterruptedException {
        release.countDown();
        for (Thread holder : holders) {
            holder.join();
        }
        if (!failures.isEmpty()) {
            throw new AssertionError("Holding places failed: " + failures, failures.peek());
        }
    }
}
