package dev.dbbulkhead.conformance;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.jdbc.SqlWork;
import dev.dbbulkhead.jdbc.TransactionLimits;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;

@DisplayName("JdbcBulkhead conformance (plain JDBC, real PostgreSQL)")
class JdbcBulkheadConformanceTest extends BulkheadConformanceTest {

    @Override
    Bulkhead bulkhead(String workload, DataSource pool, int maxConcurrent, int maxQueued, Duration queueWait) {
        return adapt(new JdbcBulkhead(workload, pool, maxConcurrent, maxQueued, queueWait));
    }

    @Override
    Bulkhead bulkhead(AdmissionGate gate, DataSource pool, TransactionLimits limits) {
        return adapt(new JdbcBulkhead(gate, pool, limits));
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
