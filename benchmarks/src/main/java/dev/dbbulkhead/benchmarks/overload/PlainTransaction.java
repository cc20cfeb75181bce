package dev.dbbulkhead.benchmarks.overload;

import dev.dbbulkhead.jdbc.SqlWork;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * One transaction without any gate: what the code behind Resilience4j, Spring's throttle or no guard at all runs.
 * The benchmark pools hand out connections with auto-commit off, so this does what {@code JdbcBulkhead} does with
 * them: work, commit (or roll back), close.
 */
public final class PlainTransaction {

    private PlainTransaction() {
    }

    /** Runs {@code work} in one transaction on a connection of {@code pool}: commit, or roll back and rethrow. */
    public static <T> T run(DataSource pool, SqlWork<T> work) throws SQLException {
        try (Connection connection = pool.getConnection()) {
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException | Error failure) {
                try {
                    connection.rollback();
                } catch (SQLException rollbackFailure) {
                    failure.addSuppressed(rollbackFailure);
                }
                throw failure;
            }
        }
    }
}
