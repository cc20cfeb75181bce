package dev.dbbulkhead.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * The work of one transaction on the connection {@link JdbcBulkhead} lends it.
 *
 * <p>It runs synchronously and returns a fully materialised value. It must not commit, roll back, change
 * auto-commit or close the connection, and must not return or hand to another thread the connection, a
 * {@code ResultSet} or a lazy stream over them: anything that outlives the call escapes the bulkhead.
 *
 * @param <T> the result
 */
@FunctionalInterface
public interface SqlWork<T extends @Nullable Object> {

    /** Does the transaction's work on {@code connection}; throwing rolls it back. */
    T run(Connection connection) throws SQLException;
}
