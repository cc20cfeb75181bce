package dev.dbbulkhead.jpa.ungated;

/** The clinic on plain JDBC and the {@code DataSourceTransactionManager}, {@code fail} mode. */
@UngatedWorkApplication.OnJdbc
class UngatedWorkRefusedOnJdbcTests extends RefusedUngatedWork {
}
