package dev.dbbulkhead.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.jdbc.SqlWork;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

@DisplayName("JdbcBulkhead conformance (plain JDBC, real PostgreSQL)")
class JdbcBulkheadConformanceTests extends BulkheadConformanceTests {

    @Override
    Bulkhead bulkhead(String workload, DataSource pool, int maxConcurrent, int maxQueued, Duration queueWait) {
        return adapt(new JdbcBulkhead(workload, pool, maxConcurrent, maxQueued, queueWait));
    }

    @Override
    Bulkhead bulkhead(AdmissionGate gate, DataSource pool, TransactionTimeouts limits) {
        return adapt(new JdbcBulkhead(gate, pool, limits));
    }

    @Test
    @DisplayName("auto-commit: a connection lent with it on is handed back with it on after a commit and after every rollback")
    void autoCommitIsHandedBackAsItWasLentOnEveryPath() throws Exception {
        database.execute("CREATE TABLE IF NOT EXISTS deferred_item (name text,"
                + " CONSTRAINT deferred_item_unique UNIQUE (name) DEFERRABLE INITIALLY DEFERRED)");
        Map<String, SqlWork<Object>> paths = new LinkedHashMap<>();
        paths.put("committed", connection -> queryInt(connection, "SELECT 1"));
        paths.put("the work's SQLException", connection -> queryInt(connection, "SELECT no_such_column"));
        paths.put("the work's RuntimeException", connection -> {
            throw new IllegalStateException("the work failed");
        });
        paths.put("the work's Error", connection -> {
            throw new SimulatedError("the work failed");
        });
        paths.put("a commit the database refused", connection -> {
            try (Statement statement = connection.createStatement()) {
                return statement.executeUpdate("INSERT INTO deferred_item VALUES ('auto-commit'), ('auto-commit')");
            }
        });
        // A data source that lends one connection and resets nothing when it is given back, as some pools do.
        try (Connection lent = database.connect()) {
            JdbcBulkhead bulkhead = new JdbcBulkhead("orders", new SingleConnectionDataSource(lent, true), 1, 0,
                    Duration.ZERO);
            Map<String, Boolean> autoCommitAfter = new LinkedHashMap<>();
            for (Map.Entry<String, SqlWork<Object>> path : paths.entrySet()) {
                catchThrowable(() -> bulkhead.transaction(path.getValue()));
                autoCommitAfter.put(path.getKey(), lent.getAutoCommit());
            }

            assertThat(autoCommitAfter).containsOnlyKeys(paths.keySet()).doesNotContainValue(false);
            assertAllPermitsBack(bulkhead.gate());
        }
    }

    /** {@code bulkhead} seen as a {@link Bulkhead}. */
    static Bulkhead adapt(JdbcBulkhead bulkhead) {
        return new Bulkhead() {
            @Override
            public <T> T transaction(Duration deadline, SqlWork<T> work) throws SQLException {
                return bulkhead.transaction(deadline, work);
            }

            @Override
            public AdmissionGate gate() {
                return bulkhead.gate();
            }
        };
    }
}
