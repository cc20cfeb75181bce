package dev.dbbulkhead.benchmarks.shares;

import dev.dbbulkhead.benchmarks.overload.GuardedTransactions;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.jdbc.SqlWork;

/** Transactions through {@code bulkhead}, each as an operation of {@code operations}, bound for the call. */
record ClassedTransactions(OperationClass operations, JdbcBulkhead bulkhead) implements GuardedTransactions {

    @Override
    public <T> T transaction(SqlWork<T> work) throws Exception {
        try (OperationClass.Scope scope = operations.bind()) {
            return bulkhead.transaction(work);
        }
    }
}
