package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Callers that share one application, each crediting a random account as soon as its previous call returned, until
 * closed. A closed loop: the callers' number, not an arrival rate, sets the load, so that the mean time per call is
 * wall time × callers / calls. The counts are {@link LongAdder}s, so that counting adds no contended word of its own
 * to the paths being compared.
 */
final class ClosedLoop implements AutoCloseable {

    private final LongAdder calls = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final AtomicReference<RuntimeException> firstError = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Callers callers;
    private volatile boolean stopping;

    private ClosedLoop(Callers callers) {
        this.callers = callers;
    }

    /** Starts {@code callers} on {@code application}; they run until {@link #close()}. */
    static ClosedLoop start(PathApplication application, Callers callers) {
        ClosedLoop loop = new ClosedLoop(callers);
        for (int i = 0; i < callers.count(); i++) {
            loop.threads.add(callers.kind().start("caller-" + callers.token() + "-" + i, () -> loop.call(application)));
        }
        return loop;
    }

    private void call(PathApplication application) {
        while (!stopping) {
            try {
                application.credit(BenchDatabase.randomAccount());
                calls.increment();
            } catch (RuntimeException failure) {
                // Sized so that nobody is refused or times out: a failure is a fault of the run, reported, not hidden.
                errors.increment();
                firstError.compareAndSet(null, failure);
            }
        }
    }

    Callers callers() {
        return callers;
    }

    /** Calls that returned since the start. */
    long calls() {
        return calls.sum();
    }

    /** Calls that threw since the start. */
    long errors() {
        return errors.sum();
    }

    /** The first call that threw, if any did. */
    Optional<RuntimeException> firstError() {
        return Optional.ofNullable(firstError.get());
    }

    /** Tells the callers to stop and waits until each has finished its last call. */
    @Override
    public void close() {
        stopping = true;
        try {
            for (Thread thread : threads) {
                thread.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while the callers stopped", e);
        }
    }
}
