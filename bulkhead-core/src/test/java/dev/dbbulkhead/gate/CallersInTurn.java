package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.testing.Await;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * Callers of gates, each on a virtual thread of its own ({@link QueuedCaller}), started as a test needs and let go one
 * at a time: the order in which the gates served them. Each step waits for what the gate itself counts, never for a
 * time.
 */
final class CallersInTurn {

    private final List<String> served = new CopyOnWriteArrayList<>();
    private final Map<String, QueuedCaller> callers = new LinkedHashMap<>();

    /** The callers' names in the order they were admitted. */
    List<String> served() {
        return served;
    }

    QueuedCaller caller(String name) {
        return callers.get(name);
    }

    /** Starts a caller and returns at once, whatever becomes of it. */
    QueuedCaller start(AdmissionGate gate, String name, OperationClass as) {
        return add(QueuedCaller.startAs(name, gate, as, served));
    }

    /** Starts a caller of a request that already committed an operation, and returns at once. */
    QueuedCaller startInProgress(AdmissionGate gate, String name, OperationClass as) {
        return add(QueuedCaller.startInProgress(name, gate, as, served));
    }

    /** Starts a caller that runs at once. */
    void run(AdmissionGate gate, String name, OperationClass as) throws Exception {
        assertThat(start(gate, name, as).outcome()).isEqualTo("admitted");
    }

    /** Starts a caller and returns once it is queued. */
    void queue(AdmissionGate gate, String name, OperationClass as) {
        int queuedBefore = gate.queueLength();
        start(gate, name, as);
        Await.until(name + " queued", () -> gate.queueLength() == queuedBefore + 1);
    }

    /**
     * Returns once caller {@code name} is parked in its wait. A gate with rules counts a waiter as queued as soon as it
     * joins the order, a moment before it looks whether the gate began to shut down and starts waiting: a test that
     * shuts the gate down after {@link #queue} and needs the waiter kept (admitted before the shutdown) waits for this.
     */
    void awaitParked(String name) {
        Thread thread = callers.get(name).thread();
        Await.until(name + " parked in its wait", () -> LockSupport.getBlocker(thread) != null);
    }

    /** Starts a caller of a request in progress and returns once it is queued. */
    void queueInProgress(AdmissionGate gate, String name, OperationClass as) {
        int queuedBefore = gate.queueLength();
        startInProgress(gate, name, as);
        Await.until(name + " queued", () -> gate.queueLength() == queuedBefore + 1);
    }

    /** Lets the last served caller leave, {@code count} times, each time waiting for the next served. */
    void serveOneByOne(int count) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            int before = served.size();
            callers.get(served.get(before - 1)).leave();
            Await.until("the next served", () -> served.size() == before + 1);
        }
    }

    /** Lets every caller go, and waits until each has ended. */
    void leaveAll() throws InterruptedException {
        for (QueuedCaller caller : callers.values()) {
            caller.leave();
        }
        callers.clear();
    }

    /** Lets every caller go, waits until each has ended, and checks that {@code gate} is idle, every place back. */
    void leaveAllAndCheckIdle(AdmissionGate gate) throws InterruptedException {
        leaveAll();
        GateModelSteps.checkIdle(gate);
    }

    /**
     * How the calling thread, asking as {@code as}, is refused by {@code gate}; {@code null} when it was admitted (its
     * permit closed at once).
     */
    static RejectionReason refusal(AdmissionGate gate, OperationClass as) {
        try (OperationClass.Scope bound = as.bind()) {
            Permit permit;
            try {
                permit = gate.acquire();
            } catch (BulkheadRejectedException refused) {
                return refused.reason();
            }
            permit.close();
            return null;
        }
    }

    private QueuedCaller add(QueuedCaller caller) {
        callers.put(caller.toString(), caller);
        return caller;
    }
}
