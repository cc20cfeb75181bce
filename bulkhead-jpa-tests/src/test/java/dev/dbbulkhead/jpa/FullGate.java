package dev.dbbulkhead.jpa;

import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

/**
 * Every execution permit of a workload, held by operations parked inside their transaction on virtual threads of
 * their own until closed: with Q = 0 the next admission is refused at once.
 */
public final class FullGate implements AutoCloseable {

    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Thread> holders = new ArrayList<>();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

    private FullGate() {
    }

    /** Takes all B permits of {@code template} and returns once every holder runs inside its transaction. */
    public static FullGate of(BulkheadTemplate template) throws InterruptedException {
        FullGate gate = new FullGate();
        int permits = template.gate().config().maxConcurrent();
        CountDownLatch running = new CountDownLatch(permits);
        for (int i = 0; i < permits; i++) {
            gate.holders.add(Thread.ofVirtual().start(() -> {
                try {
                    template.executeWithoutResult(status -> {
                        running.countDown();
                        try {
                            gate.release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                } catch (Throwable failure) {
                    gate.failures.add(failure);
                    running.countDown();
                }
            }));
        }
        running.await();
        if (!gate.failures.isEmpty()) {
            gate.close();
        }
        return gate;
    }

    /** Lets every holder finish and waits until all have given their permits back; fails on a holder's failure. */
    @Override
    public void close() throws InterruptedException {
        release.countDown();
        for (Thread holder : holders) {
            holder.join();
        }
        if (!failures.isEmpty()) {
            AssertionError failed = new AssertionError("a holder of the gate failed");
            failures.forEach(failed::addSuppressed);
            throw failed;
        }
    }
}
