package dev.dbbulkhead.benchmarks.overload;

import dev.dbbulkhead.jdbc.SqlWork;

/** Runs one transaction behind some guard (or none) on a pool. */
@FunctionalInterface
public interface GuardedTransactions {

    /** Runs {@code work} in one transaction and returns its value after commit and connection close. */
    <T> T transaction(SqlWork<T> work) throws Exception;
}
