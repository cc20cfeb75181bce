package dev.dbbulkhead.jpa.ungated;

/** The clinic on plain JDBC and the {@code DataSourceTransactionManager}, {@code warn} mode. */
@UngatedWorkApplication.OnJdbc
class UngatedWorkOnJdbcTests extends ReportedUngatedWork {

    @Override
    String startUpInfrastructure() {
        return "org.springframework.jdbc.datasource.init";
    }
}
