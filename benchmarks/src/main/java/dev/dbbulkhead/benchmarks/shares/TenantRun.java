package dev.dbbulkhead.benchmarks.shares;

import java.util.List;

/**
 * One guard's run of the tenants scenario.
 *
 * @param guard       the guard
 * @param noisy       whether the first tenant offered ten times the others' load (else the same as they)
 * @param tenants     each tenant's calls, the first one the noisy neighbour
 * @param loadAverage the machine's 1-minute load average at the end of the run
 */
record TenantRun(TenantGuard guard, boolean noisy, List<StreamOutcome> tenants, double loadAverage) {

    /** The tenants that offer the same load in every run: all but the first. */
    List<StreamOutcome> equalTenants() {
        return tenants.subList(1, tenants.size());
    }
}
