package dev.dbbulkhead.gate;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The order's own bookkeeping for one waiting operation, without the gate's lock or threads: it joins the order and is
 * granted at once. Its flow is one of {@code flows} keys taken in turn, so that with more keys than the order
 * remembers ({@link AdmissionRules#DEFAULT_KEY_SLOTS}) every turn also forgets a flow and meets one never seen or
 * forgotten — the work under the lock that a flood of tenants costs each queued operation. In the gate's package, as
 * the order is the gate's own.
 */
@State(Scope.Benchmark)
@SuppressWarnings("NullAway") // JMH sets the state up before the first call; the order always has the waiter just added
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WaitingWorkTurnBenchmark {

    @Param({"1", "1000"})
    public int flows;

    private WaitingWork<Object> order;
    private WaitingWork.Ticket[] tickets;
    private int next;

    @Setup
    public void setUp() {
        order = new WaitingWork<>(AdmissionRules.DEFAULT_KEY_SLOTS, AdmissionRules.NO_RUNNING_CAP);
        tickets = new WaitingWork.Ticket[flows];
        for (int f = 0; f < flows; f++) {
            tickets[f] = new WaitingWork.Ticket(Criticality.DEFAULT, false, "tenant-" + f, 1);
        }
    }

    @Benchmark
    public Object joinAndBeGranted() {
        WaitingWork.Ticket ticket = tickets[next];
        next = next + 1 == flows ? 0 : next + 1;
        order.add(ticket, ticket);
        WaitingWork.Waiter<Object> first = order.peekNext();
        order.granted(first);
        return first;
    }
}
