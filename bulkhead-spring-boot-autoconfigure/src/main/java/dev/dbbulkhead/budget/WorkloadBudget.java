package dev.dbbulkhead.budget;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What the budget check knows of one workload.
 *
 * @param workload      the workload name
 * @param maxConcurrent its B, or the ceiling of its adaptive limit: the most it may ever run at once
 * @param deadline      its deadline, or {@code null}
 */
public record WorkloadBudget(String workload, int maxConcurrent, @Nullable Duration deadline) {
}
