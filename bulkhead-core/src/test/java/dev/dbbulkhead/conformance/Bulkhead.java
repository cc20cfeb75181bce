package dev.dbbulkhead.conformance;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.jdbc.SqlWork;
import java.sql.SQLException;

/** One form of the bulkhead under test ({@code JdbcBulkhead} or {@code BulkheadTemplate}), seen the same way. */
interface Bulkhead {

    /** Admits, runs {@code work} in one transaction on a pooled connection, and returns its value. */
    <T> T transaction(SqlWork<T> work) throws SQLException;

    /** The gate behind it, for looking at its permits. */
    AdmissionGate gate();
}
