package dev.dbbulkhead.budget;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.FailureReports;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.budget.BudgetFinding.Kind;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The start-up budget check (docs/design.md, "Budgets") against pools of a real PostgreSQL, each finding in both
 * modes.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConnectionBudgetTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
            .withPropertyValues("spring.datasource.hikari.pool-name=budget-pool",
                    "spring.datasource.hikari.maximum-pool-size=4");

    @ParameterizedTest(name = "{0} is logged as a warning in warn mode")
    @CsvSource(delimiter = '|', textBlock = """
            POOL_OVERCOMMITTED              | orders.max-concurrent=3,reports.max-concurrent=3 | admit orders=3 + reports=3 = 6 operations at once, but it has 4 connections: 2 admitted operations would wait in the pool
            WORKLOAD_EXCEEDS_POOL           | orders.max-concurrent=6                          | workload 'orders' may run 6 operations at once, but its pool 'budget-pool' has 4 connections: 2 would wait in the pool
            UNGATED_CONNECTIONS             | orders.max-concurrent=1                          | pool 'budget-pool' has 4 connections and its gates admit orders=1 = 1 at once: 3 connections are reserved for nothing
            DEADLINE_SHORTER_THAN_POOL_WAIT | orders.max-concurrent=4,orders.deadline=200ms    | workload 'orders' has a deadline of 200 ms, but its pool 'budget-pool' waits up to 30000 ms for a connection
            """)
    void eachFindingIsLoggedOnceWithItsNumbersInWarnMode(Kind kind, String workloads, String message,
                                                           CapturedOutput output) {
        runner.withPropertyValues(workloadProperties(workloads)).run(context -> {
            assertThat(context).hasNotFailed();
            ConnectionBudgetReport report = context.getBean(ConnectionBudgetCheck.class).report().orElseThrow();
            assertThat(report.findings()).extracting(BudgetFinding::kind).containsExactly(kind);
            assertThat(report.findings().getFirst().message()).contains(message);
            assertThat(output).containsOnlyOnce(message);
        });
    }

    @ParameterizedTest(name = "{0} fails start-up in fail mode")
    @CsvSource(delimiter = '|', textBlock = """
            POOL_OVERCOMMITTED              | orders.max-concurrent=3,reports.max-concurrent=3 | admit orders=3 + reports=3 = 6 operations at once, but it has 4 connections
            WORKLOAD_EXCEEDS_POOL           | orders.max-concurrent=6                          | workload 'orders' may run 6 operations at once, but its pool 'budget-pool' has 4 connections
            UNGATED_CONNECTIONS             | orders.max-concurrent=1                          | 3 connections are reserved for nothing
            DEADLINE_SHORTER_THAN_POOL_WAIT | orders.max-concurrent=4,orders.deadline=200ms    | has a deadline of 200 ms, but its pool 'budget-pool' waits up to 30000 ms
            """)
    void eachFindingFailsStartUpInFailMode(Kind kind, String workloads, String message) {
        runner.withPropertyValues(workloadProperties(workloads)).withPropertyValues("db.bulkhead.budget.mode=fail")
                .run(context -> {
                    assertThat(context).hasFailed();
                    String report = FailureReports.report(context.getStartupFailure());
                    assertThat(report).contains(kind.name()).contains(message)
                            .contains("db.bulkhead.budget.mode=warn");
                });
    }

    @Test
    void aFleetOverTheDatabaseConnectionLimitIsAFindingWithTheArithmetic(CapturedOutput output) {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=4",
                        "db.bulkhead.fleet.max-instances=1000", "db.bulkhead.fleet.other-connections=20")
                .run(context -> {
                    ConnectionBudgetReport report = context.getBean(ConnectionBudgetCheck.class).report().orElseThrow();
                    assertThat(report.findings()).extracting(BudgetFinding::kind)
                            .containsExactly(Kind.FLEET_OVER_CONNECTION_LIMIT);
                    assertThat(report.fleets()).singleElement().extracting(FleetBudget::arithmetic).asString()
                            .startsWith("1000 instances × 4 connections + 20 other = 4020 > ")
                            .contains(" max_connections − ").endsWith(" usable");
                    assertThat(output).contains("fleet: 1000 instances × 4 connections + 20 other = 4020 > ");
                });
    }

    @Test
    void aFleetOverTheDatabaseConnectionLimitFailsStartUpInFailMode() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=4", "db.bulkhead.budget.mode=fail",
                        "db.bulkhead.fleet.max-instances=1000")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure()))
                            .contains("FLEET_OVER_CONNECTION_LIMIT")
                            .contains("1000 instances × 4 connections + 0 other = 4000 > ");
                });
    }

    @Test
    void aBudgetThatAddsUpStartsEvenInFailModeAndShowsItsArithmetic(CapturedOutput output) {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=3",
                        "db.bulkhead.workloads.reports.max-concurrent=1", "db.bulkhead.budget.mode=fail",
                        "db.bulkhead.fleet.max-instances=4", "db.bulkhead.fleet.other-connections=10")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ConnectionBudgetReport report = context.getBean(ConnectionBudgetCheck.class).report().orElseThrow();
                    assertThat(report.findings()).isEmpty();
                    assertThat(report.fleets()).singleElement().extracting(FleetBudget::arithmetic).asString()
                            .startsWith("4 instances × 4 connections + 10 other = 26 ≤ ");
                    assertThat(output).contains("pool 'budget-pool': 4 connections; gated: orders=3 + reports=1 = 4")
                            .contains("no findings");
                });
    }

    @Test
    void aFleetWhoseDatabaseIsUnreachableIsAWarningInWarnModeAndTheApplicationStarts(CapturedOutput output) {
        runner.withPropertyValues(unreachableDatabase()).withPropertyValues(
                        "db.bulkhead.workloads.orders.max-concurrent=4", "db.bulkhead.fleet.max-instances=2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ConnectionBudgetReport report = context.getBean(ConnectionBudgetCheck.class).report().orElseThrow();
                    assertThat(report.findings()).extracting(BudgetFinding::kind).containsExactly(Kind.FLEET_UNCHECKED);
                    assertThat(report.fleets()).isEmpty();
                    assertThat(output).contains("FLEET_UNCHECKED: the fleet budget of pool 'budget-pool' could not be"
                            + " checked: could not connect or read max_connections");
                });
    }

    @Test
    void aFleetWhoseDatabaseIsUnreachableFailsStartUpInFailMode() {
        runner.withPropertyValues(unreachableDatabase()).withPropertyValues(
                        "db.bulkhead.workloads.orders.max-concurrent=4", "db.bulkhead.fleet.max-instances=2",
                        "db.bulkhead.budget.mode=fail")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure()))
                            .contains("FLEET_UNCHECKED: the fleet budget of pool 'budget-pool' could not be checked")
                            .contains("db.bulkhead.budget.mode=warn");
                });
    }

    @Test
    void aFleetOnADatabaseThatIsNotPostgresqlIsAWarningInWarnModeAndTheApplicationStarts() {
        new ApplicationContextRunner()
                .withConfiguration(SharedDatabase.BOOT_JDBC)
                .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:fleet", "spring.datasource.username=sa",
                        "spring.datasource.hikari.maximum-pool-size=4", "db.bulkhead.workloads.orders.max-concurrent=4",
                        "db.bulkhead.fleet.max-instances=2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ConnectionBudgetReport report = context.getBean(ConnectionBudgetCheck.class).report().orElseThrow();
                    assertThat(report.findings()).singleElement().satisfies(finding -> {
                        assertThat(finding.kind()).isEqualTo(Kind.FLEET_UNCHECKED);
                        assertThat(finding.message()).contains("the database is H2, not PostgreSQL");
                    });
                });
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
    void eachPoolIsCheckedAgainstItsOwnServer() throws Exception {
        try (EmbeddedPostgres small = EmbeddedPostgres.builder().setServerConfig("max_connections", "20").start();
             HikariDataSource main = pool("budget-pool", 4, SharedDatabase.DATABASE.server().jdbcUrl(),
                     SharedDatabase.DATABASE.server().username(), SharedDatabase.DATABASE.server().password());
             HikariDataSource second = pool("second-pool", 10, small.getJdbcUrl("postgres", "postgres"), "postgres",
                     "")) {
            new ApplicationContextRunner()
                    .withConfiguration(SharedDatabase.BOOT_JDBC)
                    .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
                    .withBean("mainDataSource", DataSource.class, () -> main, definition -> definition.setPrimary(true))
                    .withBean("secondDataSource", DataSource.class, () -> second)
                    .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=4",
                            "db.bulkhead.workloads.reports.max-concurrent=10",
                            "db.bulkhead.workloads.reports.data-source=secondDataSource",
                            "db.bulkhead.fleet.max-instances=3")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        ConnectionBudgetReport report = context.getBean(ConnectionBudgetCheck.class).report()
                                .orElseThrow();
                        assertThat(report.fleets()).extracting(FleetBudget::pools)
                                .containsExactlyInAnyOrder(List.of("budget-pool"), List.of("second-pool"));
                        FleetBudget small20 = report.fleets().stream()
                                .filter(fleet -> fleet.pools().equals(List.of("second-pool"))).findFirst().orElseThrow();
                        assertThat(small20.maxConnections()).isEqualTo(20);
                        assertThat(small20.arithmetic()).startsWith("3 instances × 10 connections + 0 other = 30 > 20");
                        assertThat(report.findings()).extracting(BudgetFinding::kind)
                                .containsExactly(Kind.FLEET_OVER_CONNECTION_LIMIT);
                        assertThat(report.findings().getFirst().message())
                                .contains("than the server of pool 'second-pool' accepts");
                    });
        }
    }

    private static HikariDataSource pool(String name, int size, String url, String username, String password) {
        HikariDataSource pool = new HikariDataSource();
        pool.setPoolName(name);
        pool.setMaximumPoolSize(size);
        pool.setJdbcUrl(url);
        pool.setUsername(username);
        pool.setPassword(password);
        return pool;
    }

    /** Nothing listens on port 1; the pool gives up after HikariCP's shortest connection timeout. */
    private static String[] unreachableDatabase() {
        return new String[] {"spring.datasource.url=jdbc:postgresql://127.0.0.1:1/none",
                "spring.datasource.hikari.connection-timeout=250"};
    }

    private static String[] workloadProperties(String workloads) {
        return java.util.Arrays.stream(workloads.split(","))
                .map(property -> "db.bulkhead.workloads." + property).toArray(String[]::new);
    }
}
