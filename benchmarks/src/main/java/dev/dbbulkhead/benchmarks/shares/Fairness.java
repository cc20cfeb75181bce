package dev.dbbulkhead.benchmarks.shares;

import java.util.List;

/** Measures of how evenly the tenants of a run were served. */
final class Fairness {

    private Fairness() {
    }

    /** Jain's fairness index of {@code values}: 1 when all are equal, 1 / n when one has everything. */
    static double jain(List<? extends Number> values) {
        double sum = 0;
        double squares = 0;
        for (Number value : values) {
            sum += value.doubleValue();
            squares += value.doubleValue() * value.doubleValue();
        }
        return squares == 0 ? Double.NaN : sum * sum / (values.size() * squares);
    }

    /** Jain's index over the committed calls of the tenants of {@code run} that offer equal load. */
    static double jainOfEqualTenants(TenantRun run) {
        return jain(run.equalTenants().stream().map(StreamOutcome::committed).toList());
    }

    /**
     * The smallest share, over the tenants offering equal load, of a tenant's commits in {@code noisy} to its commits
     * in {@code quiet}: what the tenant that lost most kept of its goodput when the neighbour became noisy.
     */
    static double leastKept(TenantRun quiet, TenantRun noisy) {
        double least = Double.POSITIVE_INFINITY;
        for (int t = 0; t < quiet.equalTenants().size(); t++) {
            int before = quiet.equalTenants().get(t).committed();
            int after = noisy.equalTenants().get(t).committed();
            least = Math.min(least, before == 0 ? Double.NaN : (double) after / before);
        }
        return least;
    }

    /** The commits of the tenants offering equal load in {@code noisy}, over theirs in {@code quiet}. */
    static double keptTogether(TenantRun quiet, TenantRun noisy) {
        int before = quiet.equalTenants().stream().mapToInt(StreamOutcome::committed).sum();
        int after = noisy.equalTenants().stream().mapToInt(StreamOutcome::committed).sum();
        return before == 0 ? Double.NaN : (double) after / before;
    }
}
