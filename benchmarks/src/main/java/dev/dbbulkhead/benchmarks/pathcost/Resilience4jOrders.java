package dev.dbbulkhead.benchmarks.pathcost;

import io.github.resilience4j.bulkhead.annotation.Bulkhead;

/**
 * The same entry method guarded by Resilience4j's {@code @Bulkhead} instead: its aspect admits the call, then the
 * {@code @Transactional} bean begins the transaction.
 */
public class Resilience4jOrders {

    private final Accounts accounts;

    public Resilience4jOrders(Accounts accounts) {
        this.accounts = accounts;
    }

    @Bulkhead(name = "orders")
    public long credit(int id) {
        return accounts.credit(id);
    }
}
