package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;

/**
 * Operations of a workload admitted on virtual threads of their own and held inside their transaction until
 * released, as long-running work holds its permits; each can be released on its own.
 */
public final class HeldOperations implements AutoCloseable {

    private final List<CountDownLatch> releases = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    /** What the held operations threw, if anything: a test fails on it instead of missing it. */
    public final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

    /** Starts {@code count} operations on {@code template} and returns once all of them run. */
    public static HeldOperations hold(BulkheadTemplate template, int count) throws InterruptedException {
        return hold(template, count, null);
    }

    /**
     * Starts {@code count} operations on {@code template}, each of {@code operationClass} (its criticality and key, for
     * a workload with admission rules), and returns once all of them run.
     */
    public static HeldOperations hold(BulkheadTemplate template, int count, @Nullable OperationClass operationClass)
            throws InterruptedException {
        HeldOperations held = new HeldOperations();
        CountDownLatch running = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            CountDownLatch release = new CountDownLatch(1);
            held.releases.add(release);
            Runnable operation = () -> {
                try {
                    template.executeWithoutResult(status -> {
                        running.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                } catch (Throwable failure) {
                    held.failures.add(failure);
                    running.countDown();
                }
            };
            held.threads.add(Thread.ofVirtual().start(operationClass == null ? operation
                    : operationClass.wrap(operation)));
        }
        running.await();
        return held;
    }

    /** Lets operation {@code index} finish and waits until it has given its permits back. */
    public void release(int index) throws InterruptedException {
        releases.get(index).countDown();
        threads.get(index).join();
    }

    /** Lets every operation finish and waits until all have given their permits back. */
    @Override
    public void close() throws InterruptedException {
        for (int i = 0; i < threads.size(); i++) {
            release(i);
        }
    }
}
