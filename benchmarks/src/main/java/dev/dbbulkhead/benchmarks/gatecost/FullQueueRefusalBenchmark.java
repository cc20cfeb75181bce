package dev.dbbulkhead.benchmarks.gatecost;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.gate.Permit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One refusal at a full queue under fair shares: the only running place is held, and {@code queued} operations of one
 * busy flow wait in the queue, so the measured call — another operation of that flow — asks the order whom it would
 * displace before it is refused. That is the decision the queue's edge takes for every operation past {@code B + Q}
 * under overload; nothing changes, so each call measures the same decision.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FullQueueRefusalBenchmark {

    private static final String BUSY_FLOW = "busy";

    /** Waiting places, all taken by the busy flow. */
    @Param({"16", "256"})
    public int queued;

    private AdmissionGate gate;
    private final CountDownLatch leave = new CountDownLatch(1);
    private final List<Thread> inside = new ArrayList<>();

    @Setup(Level.Trial)
    public void fillThePlaces() throws InterruptedException {
        gate = new AdmissionGate("full-queue", GateConfig.builder().maxConcurrent(1).maxQueued(queued)
                .queueWait(Duration.ofHours(1))
                .admissionRules(AdmissionRules.builder().fairShares(true).build()).build());
        CountDownLatch running = new CountDownLatch(1);
        inside.add(Thread.ofPlatform().daemon().start(() -> hold(running)));
        running.await();
        for (int i = 0; i < queued; i++) {
            inside.add(Thread.ofPlatform().daemon().start(() -> hold(new CountDownLatch(1))));
        }
        while (gate.waiting() < queued) {
            Thread.onSpinWait();
        }
    }

    @TearDown(Level.Trial)
    public void emptyThePlaces() throws InterruptedException {
        leave.countDown();
        for (Thread thread : inside) {
            thread.join();
        }
    }

    @Benchmark
    public Object refuse() {
        try (OperationClass.Scope scope = OperationClass.of(Criticality.DEFAULT, BUSY_FLOW).bind();
             Permit permit = gate.acquire()) {
            throw new IllegalStateException("admitted with every place taken");
        } catch (BulkheadRejectedException refused) {
            return refused;
        }
    }

    private void hold(CountDownLatch running) {
        try (OperationClass.Scope scope = OperationClass.of(Criticality.DEFAULT, BUSY_FLOW).bind();
             Permit permit = gate.acquire()) {
            running.countDown();
            leave.await();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
