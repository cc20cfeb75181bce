package dev.dbbulkhead.benchmarks.overload;

import dev.dbbulkhead.jdbc.SqlWork;
import java.util.OptionalLong;

/** Runs one transaction behind some guard (or none) on a pool. */
@FunctionalInterface
public interface GuardedTransactions {

    /** Runs {@code work} in one transaction and returns its value after commit and connection close. */
    <T> T transaction(SqlWork<T> work) throws Exception;

    /** Waiters the guard's queue discipline refused before their queue wait ran out; empty for guards without one. */
    default OptionalLong shedCount() {
        return OptionalLong.empty();
    }
}
