package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.transaction.BulkheadRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * statement-timeout, lock-timeout and deadline are applied with PostgreSQL's SET LOCAL: against another database
 * (H2 here, as in a dev profile) they must stop start-up, per workload, instead of failing every call.
 */
class NonPostgresDatabaseStartUpTests {

    private final ApplicationContextRunner h2 = new ApplicationContextRunner()
            .withConfiguration(SharedDatabase.BOOT_JDBC)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:dev-profile", "spring.datasource.username=sa");

    @Test
    void aStatementTimeoutOnAnH2DataSourceFailsStartUpNamingTheWorkloadThePropertyAndTheDatabase() {
        h2.withPropertyValues("db.bulkhead.workloads.orders.statement-timeout=100ms",
                "db.bulkhead.workloads.reports.max-concurrent=1").run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure()))
                    .contains("applied with PostgreSQL's SET LOCAL",
                            "- workload 'orders' on H2: db.bulkhead.workloads.orders.statement-timeout",
                            "Action: Remove the properties listed above where the database is not PostgreSQL")
                    .doesNotContain("workload 'reports'");
        });
    }

    @Test
    void aDefaultLimitIsReportedForEveryWorkloadThatInheritsItUnderTheNameTheUserWrote() {
        h2.withPropertyValues("db.bulkhead.defaults.lock-timeout=1s", "db.bulkhead.workloads.orders.deadline=2s",
                "db.bulkhead.workloads.reports.max-concurrent=1").run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure()))
                    .contains("- workload 'orders' on H2: db.bulkhead.defaults.lock-timeout,"
                                    + " db.bulkhead.workloads.orders.deadline",
                            "- workload 'reports' on H2: db.bulkhead.defaults.lock-timeout");
        });
    }

    @Test
    void withoutPostgresOnlyLimitsAnH2DataSourceStartsAndRunsAdmittedTransactions() {
        h2.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=1").run(context -> {
            assertThat(context).hasNotFailed();
            JdbcClient jdbc = JdbcClient.create(context.getBean(javax.sql.DataSource.class));
            Integer answer = context.getBean(BulkheadRegistry.class).template("orders")
                    .execute(status -> jdbc.sql("SELECT 42").query(Integer.class).single());
            assertThat(answer).isEqualTo(42);
        });
    }

    @Test
    void postgresOnlyLimitsOnPostgresqlStart() {
        new ApplicationContextRunner().with(SharedDatabase::onBootJdbc)
                .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
                .withPropertyValues("db.bulkhead.workloads.orders.statement-timeout=100ms",
                        "db.bulkhead.workloads.orders.lock-timeout=50ms", "db.bulkhead.workloads.orders.deadline=1s")
                .run(context -> assertThat(context).hasNotFailed());
    }
}
