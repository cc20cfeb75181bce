package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.annotation.DbBulkhead;

/** The entry method as db-bulkhead's users write it: admitted by workload {@code orders}, then the transaction. */
public class BulkheadedOrders {

    private final Accounts accounts;

    public BulkheadedOrders(Accounts accounts) {
        this.accounts = accounts;
    }

    @DbBulkhead("orders")
    public long credit(int id) {
        return accounts.credit(id);
    }
}
