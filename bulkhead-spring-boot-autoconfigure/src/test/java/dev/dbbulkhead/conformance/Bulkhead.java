package dev.dbbulkhead.conformance;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.jdbc.SqlWork;
import java.sql.SQLException;
import java.time.Duration;

/** One form of the bulkhead under test ({@code JdbcBulkhead} or {@code BulkheadTemplate}), seen the same way. */
interface Bulkhead {

    /** Admits, runs {@code work} in one transaction on a pooled connection, and returns its value. */
    default <T> T transaction(SqlWork<T> work) throws SQLException {
        return transaction(null, work);
    }

    /** {@link #transaction(SqlWork)} within a per-call deadline ({@code null}: none). */
    <T> T transaction(Duration deadline, SqlWork<T> work) throws SQLException;

    /** The gate behind it, for looking at its permits. */
    AdmissionGate gate();
}
