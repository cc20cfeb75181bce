package dev.dbbulkhead.benchmarks.shares;

import dev.dbbulkhead.benchmarks.overload.GuardedTransactions;

/** One guard shared by the tenants of a workload: how a tenant's transactions run behind it. */
@FunctionalInterface
interface TenantTransactions {

    /** The transactions of {@code tenant}, run behind the guard as that tenant's. */
    GuardedTransactions of(String tenant);
}
