package dev.dbbulkhead.budget;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One pool and the workloads whose gates admit work onto it.
 *
 * @param pool      the pool's limits
 * @param workloads the workloads using it
 */
public record PoolBudget(PoolSettings pool, List<WorkloadBudget> workloads) {

    /** The sum of B of the workloads on this pool, in exact arithmetic. */
    public long gatedConcurrency() {
        return workloads.stream().mapToLong(WorkloadBudget::maxConcurrent).sum();
    }

    /** {@code orders=8 + reports=2 = 10}. */
    public String gatedArithmetic() {
        return workloads.stream().map(w -> w.workload() + "=" + w.maxConcurrent())
                .collect(Collectors.joining(" + ")) + " = " + gatedConcurrency();
    }
}
