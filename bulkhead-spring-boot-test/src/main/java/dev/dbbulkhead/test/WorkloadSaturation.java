package dev.dbbulkhead.test;

import dev.dbbulkhead.gate.GateSaturation;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Every place of one or more workloads — running and queued — taken on purpose, until closed: meanwhile every
 * operation of those workloads is refused at once with {@code ADMISSION_FULL}, as under an overload that fills their
 * gates, so that a test can assert what the application then does (its 503 page, its retry logic, its fallback)
 * against the real gates, on the real request path:
 *
 * <pre>{@code
 * try (WorkloadSaturation saturated = WorkloadSaturation.of(registry, "orders")) {
 *     mockMvc.perform(post("/orders")).andExpect(status().isServiceUnavailable());
 * }
 * }</pre>
 *
 * <p>The places are taken at once from idle gates ({@link dev.dbbulkhead.gate.AdmissionGate#saturate()}): no thread
 * waits, no connection is taken, and the test's own thread holds nothing, so it may call the application's gated code
 * and be refused. Closing gives every place back before it returns, once, from any thread; nothing is left to wait
 * for, so a test needs no sleep before or after. Meters and the {@code dbbulkheads} endpoint show the workloads full
 * ({@code active} B, {@code waiting} Q); the refusals count as rejections, and nothing as admitted.
 *
 * <p>Not thread-safe to open (take it in the test's thread); safe to close from any thread.
 */
public final class WorkloadSaturation implements AutoCloseable {

    private final List<GateSaturation> gates;

    private WorkloadSaturation(List<GateSaturation> gates) {
        this.gates = List.copyOf(gates);
    }

    /**
     * Takes every place of {@code workload}, and of each of {@code more}: all of them, or none.
     *
     * @throws IllegalArgumentException when a workload is not in {@code registry} (the message lists those that are),
     *                                  or is named twice
     * @throws IllegalStateException    when a workload is in use: an operation runs or waits in it (a test saturates
     *                                  an idle application, so that it holds every place and waits for none)
     */
    public static WorkloadSaturation of(BulkheadRegistry registry, String workload, String... more) {
        Set<String> names = new LinkedHashSet<>();
        names.add(workload);
        for (String name : more) {
            if (!names.add(name)) {
                throw new IllegalArgumentException("Workload '" + name + "' is named twice");
            }
        }
        List<GateSaturation> taken = new ArrayList<>();
        try {
            for (String name : names) {
                taken.add(registry.template(name).gate().saturate());
            }
        } catch (RuntimeException refused) {
            // All or none: a test must never go on with some of its workloads open, nor leave places taken.
            taken.forEach(GateSaturation::close);
            throw refused;
        }
        return new WorkloadSaturation(taken);
    }

    /** The saturated workloads, in the order they were named. */
    public List<String> workloads() {
        return gates.stream().map(GateSaturation::workload).toList();
    }

    /** Whether the places have been given back. */
    public boolean isReleased() {
        return gates.stream().allMatch(GateSaturation::isReleased);
    }

    /** Gives every place back the first time it is called; later calls do nothing. */
    @Override
    public void close() {
        gates.forEach(GateSaturation::close);
    }

    @Override
    public String toString() {
        return "WorkloadSaturation" + gates;
    }
}
