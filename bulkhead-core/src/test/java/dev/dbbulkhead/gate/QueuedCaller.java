package dev.dbbulkhead.gate;

import dev.dbbulkhead.BulkheadRejectedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One caller of a gate on a virtual thread of its own: it enters, records its name in {@code served} once admitted,
 * and holds its permit until {@link #leave()}; or it is refused and tells why.
 */
final class QueuedCaller {

    private final String name;
    private final CountDownLatch leave = new CountDownLatch(1);
    private final CompletableFuture<String> outcome = new CompletableFuture<>();
    private final Thread thread;

    private QueuedCaller(String name, AdmissionGate gate, Duration budget, List<String> served) {
        this(name, gate, budget, OperationClass.UNCLASSIFIED, false, served);
    }

    private QueuedCaller(String name, AdmissionGate gate, Duration budget, OperationClass as,
                         boolean requestInProgress, List<String> served) {
        this.name = name;
        this.thread = Thread.ofVirtual().name(name).start(() -> {
            try (RequestCommits.Scope request = RequestCommits.track();
                 OperationClass.Scope bound = as.bind();
                 Permit permit = acquire(gate, budget, requestInProgress)) {
                served.add(name);
                outcome.complete("admitted");
                leave.await();
            } catch (BulkheadRejectedException refused) {
                outcome.complete(refused.reason() + (Thread.currentThread().isInterrupted() ? " interrupted" : ""));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    private static Permit acquire(AdmissionGate gate, Duration budget, boolean requestInProgress) {
        if (requestInProgress) {
            // As if an earlier operation of the request had committed.
            ThreadRecord.current().operationEnded(true);
        }
        return budget == null ? gate.acquire() : gate.acquireWithin(budget);
    }

    /** Starts a caller that asks with {@link AdmissionGate#acquire()}. */
    static QueuedCaller start(String name, AdmissionGate gate, List<String> served) {
        return new QueuedCaller(name, gate, null, served);
    }

    /** Starts a caller that asks with {@link AdmissionGate#acquire()} as an operation of class {@code as}. */
    static QueuedCaller startAs(String name, AdmissionGate gate, OperationClass as, List<String> served) {
        return new QueuedCaller(name, gate, null, as, false, served);
    }

    /**
     * Starts a caller that asks with {@link AdmissionGate#acquire()} as an operation of class {@code as} of a request
     * that already committed an operation.
     */
    static QueuedCaller startInProgress(String name, AdmissionGate gate, OperationClass as, List<String> served) {
        return new QueuedCaller(name, gate, null, as, true, served);
    }

    /** Starts a caller that asks with {@link AdmissionGate#acquireWithin}. */
    static QueuedCaller startWithin(String name, AdmissionGate gate, Duration budget, List<String> served) {
        return new QueuedCaller(name, gate, budget, served);
    }

    /** "admitted", or the rejection's reason (followed by " interrupted" when the interrupt flag was set). */
    String outcome() throws Exception {
        return outcome.get(30, TimeUnit.SECONDS);
    }

    boolean decided() {
        return outcome.isDone();
    }

    /** Lets an admitted caller release its permit, and waits until its thread has ended. */
    void leave() throws InterruptedException {
        leave.countDown();
        thread.join();
    }

    Thread thread() {
        return thread;
    }

    @Override
    public String toString() {
        return name;
    }
}
