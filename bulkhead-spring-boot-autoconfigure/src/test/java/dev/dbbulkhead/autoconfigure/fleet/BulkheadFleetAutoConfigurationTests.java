package dev.dbbulkhead.autoconfigure.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.BulkheadConfigurationException;
import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.autoconfigure.actuate.endpoint.BulkheadEndpointAutoConfiguration;
import dev.dbbulkhead.autoconfigure.saturation.BulkheadDatabaseSignalsAutoConfiguration;
import dev.dbbulkhead.autoconfigure.saturation.LockWaiters;
import dev.dbbulkhead.budget.ConnectionBudgetCheck;
import dev.dbbulkhead.budget.ServerConnectionSlots;
import dev.dbbulkhead.fleet.FleetCoordinator;
import dev.dbbulkhead.fleet.FleetMember;
import dev.dbbulkhead.fleet.FleetUnavailableException;
import dev.dbbulkhead.fleet.Lease;
import dev.dbbulkhead.fleet.LeaseRequest;
import dev.dbbulkhead.fleet.support.FleetConnections;
import dev.dbbulkhead.fleet.support.FleetMembership;
import dev.dbbulkhead.metrics.FleetMeterBinder;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.assertj.core.api.AbstractThrowableAssert;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.jdbc.core.JdbcTemplate;

@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class BulkheadFleetAutoConfigurationTests {

    /** Each test its own table, so that no test sees another's members in the shared schema. */
    private static final AtomicInteger TABLES = new AtomicInteger();

    private final String table = "fleet_context_" + TABLES.incrementAndGet();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class,
                    BulkheadFleetAutoConfiguration.class, BulkheadEndpointAutoConfiguration.class))
            .withPropertyValues("spring.datasource.hikari.maximum-pool-size=10",
                    "db.bulkhead.workloads.orders.max-concurrent=6",
                    "db.bulkhead.workloads.reports.max-concurrent=4",
                    "db.bulkhead.fleet.table=" + table,
                    "db.bulkhead.fleet.heartbeat=100ms",
                    "db.bulkhead.fleet.lease-ttl=2s",
                    "spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=dbbulkheads");

    @Test
    void coordinationIsOffByDefaultAndTheStartUpCheckStaysAsItWas() {
        runner.run(context -> assertThat(context).hasNotFailed()
                .hasSingleBean(ConnectionBudgetCheck.class)
                .doesNotHaveBean(FleetMembership.class)
                .doesNotHaveBean(FleetConnections.class));
    }

    @Test
    void anAdaptiveLimitOnTheCoordinatedPoolFailsStartUpNamingTheWorkloadAndTheFix() {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5",
                "db.bulkhead.workloads.orders.limit.mode=adaptive").run(context -> {
                    // Thrown as the membership is made, before it joins: its creation wraps it.
                    startUpRefusal(context)
                            .hasMessageContaining("db.bulkhead.workloads.orders.limit.mode")
                            .hasMessageContaining("limit.mode=fixed");
                });
    }

    @Test
    void aWorkloadSteeredByTheDatabaseOnTheCoordinatedPoolFailsStartUpNamingTheKeyAndTheWayOut() {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5",
                "db.bulkhead.database.signals.enabled=true", "db.bulkhead.workloads.orders.limit.database=steer")
                .run(context -> {
                    // Thrown as the membership is made, before it joins: its creation wraps it.
                    startUpRefusal(context)
                            .hasMessageContaining("db.bulkhead.workloads.orders.limit.database")
                            .hasMessageContaining("limit.database=recommend");
                });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "db.bulkhead.workloads.orders.limit.mode=adaptive | db.bulkhead.workloads.orders.limit.mode | limit.mode=fixed",
            "db.bulkhead.defaults.limit.mode=adaptive | db.bulkhead.defaults.limit.mode | limit.mode=fixed",
            "db.bulkhead.workloads.orders.limit.database=steer | db.bulkhead.workloads.orders.limit.database"
                    + " | limit.database=recommend",
            "db.bulkhead.workloads.orders.data-source=dataSource,db.bulkhead.workloads.orders.limit.mode=adaptive"
                    + " | db.bulkhead.workloads.orders.limit.mode | limit.mode=fixed"
    })
    void aLimitThatMovesBOnTheCoordinatedPoolFailsStartUpBeforeTheMemberAsksForALease(String settings,
            String property, String wayOut) {
        RenewalsRefused coordinator = new RenewalsRefused();
        runner.withBean(FleetCoordinator.class, () -> coordinator)
                .withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5",
                        "db.bulkhead.database.signals.enabled=true")
                .withPropertyValues(settings.split(","))
                .run(context -> {
                    startUpRefusal(context)
                            .hasMessageContaining("'" + property + "'")
                            .hasMessageContaining(wayOut);
                    // In a full fleet a member that asked would first wait up to lease-ttl for room.
                    assertThat(coordinator.renewals).as("renewals asked for").hasValue(0);
                });
    }

    @ParameterizedTest(name = "budget {0}, floor {1}")
    @CsvSource(delimiter = '|', value = {
            // Unset, the floor is one connection per workload on the pool: orders and reports.
            "1 |   | 2 | unset, the floor is one connection per workload",
            "2 | 3 | 3 | no lease can grant an instance more than the whole fleet's budget"
    })
    void aFloorAboveTheWholeBudgetFailsStartUpBeforeTheMemberAsksForALease(int budget, @Nullable Integer floor,
            int shown, String reason) {
        RenewalsRefused coordinator = new RenewalsRefused();
        ApplicationContextRunner configured = runner.withBean(FleetCoordinator.class, () -> coordinator)
                .withPropertyValues("db.bulkhead.fleet.coordination=postgres",
                        "db.bulkhead.fleet.connection-budget=" + budget);
        if (floor != null) {
            configured = configured.withPropertyValues("db.bulkhead.fleet.floor=" + floor);
        }
        configured.run(context -> {
            startUpRefusal(context)
                    .hasMessageContaining("'db.bulkhead.fleet.floor'")
                    .hasMessageContaining("'" + shown + "'")
                    .hasMessageContaining("db.bulkhead.fleet.connection-budget = " + budget)
                    .hasMessageContaining(reason);
            // Else it would wait lease-ttl for a grant no fleet can give, then run outside the budget.
            assertThat(coordinator.renewals).as("renewals asked for").hasValue(0);
        });
    }

    @Test
    void aWorkloadTheDefaultsPlaceOnAnotherDataSourceAddsNothingToTheCoordinatedPoolsFloor() {
        // orders names the primary data source; reports is on "elsewhere" by the defaults alone. Counted too, reports
        // would raise the floor to 2, above the budget of 1, and start-up would refuse it.
        // Both closed with the context, as every AutoCloseable bean is.
        runner.withBean("dataSource", DataSource.class, () -> unstartedPool("fleet-primary", 10),
                        definition -> definition.setPrimary(true))
                .withBean("elsewhere", DataSource.class, () -> unstartedPool("fleet-elsewhere", 2))
                .withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=1",
                        "db.bulkhead.defaults.data-source=elsewhere",
                        "db.bulkhead.workloads.orders.data-source=dataSource")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    FleetMembership membership = context.getBean(FleetMembership.class);
                    Await.until("the share leased", () -> membership.snapshot().applied() == 1);
                    assertThat(context.getBean(BulkheadRegistry.class).template("reports").dataSource())
                            .contains(context.getBean("elsewhere", DataSource.class));
                });
    }

    /** A pool of the shared schema that opens its connections only when first asked, as Boot's own does. */
    private static DataSource unstartedPool(String name, int size) {
        HikariDataSource pool = new HikariDataSource();
        SharedDatabase.DATABASE.poolConfig(size, name).copyStateTo(pool);
        return pool;
    }

    @Test
    void aLimitOnAWorkloadWhosePoolOnlyItsGateShowsIsRefusedOnceTheGatesExist() {
        // A named transaction manager decides the workload's data source: the properties cannot tell which it is.
        RenewalsRefused coordinator = new RenewalsRefused();
        runner.withBean(FleetCoordinator.class, () -> coordinator)
                .withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5",
                        "db.bulkhead.workloads.orders.transaction-manager=transactionManager",
                        "db.bulkhead.workloads.orders.limit.mode=adaptive")
                .run(context -> {
                    startUpRefusal(context)
                            .hasMessageContaining("'db.bulkhead.workloads.orders.limit.mode'")
                            .hasMessageContaining("limit.mode=fixed");
                    assertThat(coordinator.renewals).as("renewals asked for").hasPositiveValue();
                });
    }

    @Test
    void aTotalThatFollowsTheDatabaseWithoutItsSignalsFailsStartUpNamingTheKeyAndTheWayOut() {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5",
                "db.bulkhead.fleet.total=database").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .isInstanceOf(BulkheadConfigurationException.class)
                            .hasMessageContaining("db.bulkhead.fleet.total")
                            .hasMessageContaining("db.bulkhead.database.signals.enabled=true");
                });
    }

    @Test
    void lockContentionOnTheServerLowersTheFleetsTotalAndItComesBackToTheBudgetOnceTheLocksAreFree()
            throws Exception {
        SharedDatabase.DATABASE.execute("CREATE TABLE IF NOT EXISTS fleet_total_account (id int PRIMARY KEY, n int)",
                "INSERT INTO fleet_total_account VALUES (1, 0) ON CONFLICT DO NOTHING");
        runner.withConfiguration(AutoConfigurations.of(BulkheadDatabaseSignalsAutoConfiguration.class))
                .withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5",
                        "db.bulkhead.fleet.total=database", "db.bulkhead.database.signals.enabled=true",
                        "db.bulkhead.database.signals.interval=100ms",
                        "db.bulkhead.database.signals.query-timeout=100ms")
                .run(context -> {
                    FleetMembership membership = context.getBean(FleetMembership.class);
                    Await.until("the whole budget leased", () -> membership.snapshot().applied() == 5);
                    assertThat(membership.snapshot().total()).isEqualTo(5);

                    try (LockWaiters waiters = LockWaiters.on(SharedDatabase.DATABASE, "fleet_total_account", 3)) {
                        Await.until("the fleet's total lowered to one", () -> membership.snapshot().total() == 1);
                        // Its floor, one connection a workload, is outside the budget: it keeps no more than that.
                        Await.until("the member down to its floor", () -> membership.snapshot().applied() == 2);
                        Await.until("the rest given back", () -> membership.snapshot().granted() <= 2);
                        assertThat(new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(
                                "SELECT fleet_total FROM " + table, Integer.class)).as("in the table").isEqualTo(1);
                        assertThat(context.getBean(BulkheadsEndpoint.class).bulkheads().fleet())
                                .extracting("total", "budget").containsExactly(1, 5);
                        MeterRegistry meters = new SimpleMeterRegistry();
                        context.getBean(FleetMeterBinder.class).bindTo(meters);
                        assertThat(meters.get(FleetMeterBinder.CONNECTIONS).tag("kind", "total").gauge().value())
                                .isEqualTo(1);
                    }

                    Await.until("the total back at the budget", () -> membership.snapshot().total() == 5);
                    Await.until("the whole budget leased again", () -> membership.snapshot().applied() == 5);
                });
    }

    @Test
    void withPostgresCoordinationTheLeasedShareBoundsThePoolAndTheGates() {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5")
                .run(context -> {
                    FleetMembership membership = context.getBean(FleetMembership.class);
                    Await.until("the share leased", () -> membership.snapshot().applied() == 5);
                    HikariDataSource pool = context.getBean(DataSource.class).unwrap(HikariDataSource.class);
                    BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);

                    assertThat(pool.getMaximumPoolSize()).isEqualTo(5);
                    assertThat(registry.template("orders").gate().config().maxConcurrent()).isEqualTo(3);
                    assertThat(registry.template("reports").gate().config().maxConcurrent()).isEqualTo(2);
                    assertThat(new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(
                            "SELECT granted FROM " + table, Integer.class)).isEqualTo(5);
                });
    }

    @Test
    void theEndpointShowsTheFleetAndAResizeStaysUnderTheShare() {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5")
                .run(context -> {
                    FleetMembership membership = context.getBean(FleetMembership.class);
                    Await.until("the share leased", () -> membership.snapshot().applied() == 5);
                    BulkheadsEndpoint endpoint = context.getBean(BulkheadsEndpoint.class);

                    BulkheadsEndpoint.FleetDescriptor fleet = endpoint.bulkheads().fleet();
                    assertThat(fleet.status()).isEqualTo("leased");
                    assertThat(fleet.budget()).isEqualTo(5);
                    assertThat(fleet).as("a fleet of one renews every heartbeat on the configured lease")
                            .extracting("heartbeatsPerRenewal", "leaseTtl").containsExactly(1, "2s");
                    assertThat(fleet.ceilings()).containsEntry("orders", 3).containsEntry("reports", 2);
                    assertThat(fleet.members()).singleElement().satisfies(member -> {
                        assertThat(member.memberId()).isEqualTo(fleet.memberId());
                        assertThat(member.granted()).isEqualTo(5);
                    });

                    assertThat(endpoint.resize("orders", 9, null).maxConcurrent()).as("capped by the share")
                            .isEqualTo(3);
                    assertThat(endpoint.resize("orders", 1, 2).maxConcurrent()).isEqualTo(1);
                    assertThat(endpoint.workload("orders").maxQueued()).isEqualTo(2);
                });
    }

    @Test
    void aResizeInCodeIsARequestTooThatTheSharesCapStillBounds() {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5")
                .run(context -> {
                    FleetMembership membership = context.getBean(FleetMembership.class);
                    Await.until("the share leased", () -> membership.snapshot().applied() == 5);
                    BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");

                    orders.resize(9, 2);

                    assertThat(orders.gate().config().maxConcurrent()).as("capped by the share").isEqualTo(3);
                    assertThat(orders.gate().config().maxQueued()).isEqualTo(2);
                    assertThat(membership.ceiling("orders").orElseThrow().requested()).isEqualTo(9);
                });
    }

    @Test
    void theMetersShowTheShareTheConnectionsAndTheMembers() {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5")
                .run(context -> {
                    FleetMembership membership = context.getBean(FleetMembership.class);
                    Await.until("the share leased", () -> membership.snapshot().applied() == 5);
                    MeterRegistry meters = new SimpleMeterRegistry();
                    context.getBean(FleetMeterBinder.class).bindTo(meters);

                    assertThat(meters.get(FleetMeterBinder.SHARE).tag("workload", "orders").gauge().value())
                            .isEqualTo(3);
                    assertThat(meters.get(FleetMeterBinder.CONNECTIONS).tag("kind", "granted").gauge().value())
                            .isEqualTo(5);
                    assertThat(meters.get(FleetMeterBinder.MEMBERS).gauge().value()).isEqualTo(1);
                });
    }

    @Test
    void withoutABudgetTheFleetTakesWhatTheServerAcceptsLessOtherConnections() {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.other-connections=7")
                .run(context -> {
                    FleetMembership membership = context.getBean(FleetMembership.class);
                    Await.until("the share leased", () -> membership.snapshot().status() == FleetMember.Status.LEASED);
                    long usable = ServerConnectionSlots.of(context.getBean(DataSource.class)).usableBy(7);

                    assertThat(membership.snapshot().budget()).isEqualTo((int) usable);
                });
    }

    @Test
    void aCleanShutdownGivesTheShareBack() {
        JdbcTemplate side = new JdbcTemplate(dataSourceOfTheSchema());
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5")
                .run(context -> {
                    FleetMembership membership = context.getBean(FleetMembership.class);
                    Await.until("the share leased", () -> membership.snapshot().applied() == 5);
                });
        assertThat(side.queryForObject("SELECT count(*) FROM " + table, Integer.class)).isZero();
    }

    @Test
    void anInstanceJoiningAFullBudgetStartsOnlyOnceTheOthersGaveBackRoomForItsFloor(CapturedOutput output) {
        JdbcTemplate side = new JdbcTemplate(dataSourceOfTheSchema());
        ApplicationContextRunner instance = runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres",
                "db.bulkhead.fleet.connection-budget=5");
        instance.run(first -> {
            FleetMembership holder = first.getBean(FleetMembership.class);
            Await.until("the first instance holds the whole budget", () -> holder.snapshot().granted() == 5);

            instance.run(second -> {
                FleetMember.Snapshot newcomer = second.getBean(FleetMembership.class).snapshot();
                assertThat(newcomer.granted()).as("its floor, one per workload, granted before it started")
                        .isGreaterThanOrEqualTo(2);
                assertThat(side.queryForObject("SELECT sum(granted) FROM " + table, Integer.class))
                        .isLessThanOrEqualTo(5);
            });
        });
        assertThat(output).contains("waits for room for its floor of 2 (granted 0 of budget 5 among 2 members)");
    }

    @Test
    void schemaInitialisationRunsOnlyOnceTheMemberJoinedSoThatWhatItOpensIsWithinTheGrant() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5",
                        "db.bulkhead.fleet.table=fleet_joined_before_schema_initialisation",
                        "spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=classpath:fleet/schema-records-the-grant.sql")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeanFactory().getBeanDefinition("dataSourceScriptDatabaseInitializer")
                            .getDependsOn()).contains("dbBulkheadFleetMembership");
                    // The script read, on its own connection, this member's lease in the fleet's table.
                    List<Map<String, Object>> seen = new JdbcTemplate(context.getBean(DataSource.class))
                            .queryForList("SELECT session_name, granted FROM grant_seen_by_schema_initialisation");
                    assertThat(seen).as("the member's unexpired lease, as schema initialisation saw it").hasSize(1);
                    assertThat(seen.getFirst().get("session_name")).asString().contains("(db-bulkhead member ");
                    assertThat((Integer) seen.getFirst().get("granted")).as("at least its floor, one per workload")
                            .isGreaterThanOrEqualTo(2);
                });
    }

    @Test
    void withLazyInitialisationTheMemberStillJoinsAtStartUpAndTheShareBoundsTheGates() {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5")
                .withBean(LazyInitializationBeanFactoryPostProcessor.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    FleetMembership membership = context.getBean(FleetMembership.class);
                    assertThat(membership.isRunning()).isTrue();
                    assertThat(membership.snapshot().granted()).isEqualTo(5);
                    BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                    assertThat(registry.template("orders").gate().config().maxConcurrent()).isEqualTo(3);
                    assertThat(registry.template("reports").gate().config().maxConcurrent()).isEqualTo(2);
                });
    }

    @Test
    void theStartUpBudgetCheckJudgesTheGatesAsTheShareCapsThemNotTheConfiguredBOverTheGrantedPool(
            CapturedOutput output) {
        // Granted 5 of a pool of 10 whose gates are configured at 6 + 4: the share caps them to 3 + 2.
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5",
                        "db.bulkhead.budget.mode=fail")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ConnectionBudgetCheck.class).report()).get()
                            .satisfies(report -> assertThat(report.findings()).isEmpty());
                });
        assertThat(output).doesNotContain("WORKLOAD_EXCEEDS_POOL");
    }

    @Test
    void aMemberThatCanBeFencedStartsWithoutAFencingWarning(CapturedOutput output) {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(FleetMembership.class).snapshot().granted()).isEqualTo(5);
                });
        assertThat(output).contains("joined the fleet").doesNotContain("cannot be fenced");
    }

    @Test
    void flywaysMigrationsRunOnlyOnceTheMemberJoined() {
        runner.withConfiguration(AutoConfigurations.of(FlywayAutoConfiguration.class))
                .withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5",
                        "db.bulkhead.fleet.table=fleet_joined_before_flyway",
                        "spring.flyway.locations=classpath:fleet/migration",
                        "spring.flyway.table=flyway_history_of_the_fleet_test",
                        // The schema is shared with the other tests, and holds the fleet's table by then.
                        "spring.flyway.baseline-on-migrate=true", "spring.flyway.baseline-version=0")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    // Flyway, then its initializer, which migrates: each initializer waits for the ones before.
                    assertThat(context.getBeanFactory().getBeanDefinition("flyway").getDependsOn())
                            .contains("dbBulkheadFleetMembership");
                    assertThat(context.getBeanFactory().getBeanDefinition("flywayInitializer").getDependsOn())
                            .contains("flyway");
                    assertSawTheMembersLease(context, "grant_seen_by_flyway", "the migration");
                });
    }

    /** What a migration wrote of the lease table while it ran: the member's unexpired lease, granted its share. */
    private static void assertSawTheMembersLease(AssertableApplicationContext context, String table, String seenBy) {
        List<Map<String, Object>> seen = new JdbcTemplate(context.getBean(DataSource.class))
                .queryForList("SELECT session_name, granted FROM " + table);
        assertThat(seen).as("the member's unexpired lease, as " + seenBy + " saw it").hasSize(1);
        assertThat((Integer) seen.getFirst().get("granted")).isGreaterThanOrEqualTo(2);
    }

    @Test
    void liquibasesChangelogRunsOnlyOnceTheMemberJoined() {
        runner.withConfiguration(AutoConfigurations.of(LiquibaseAutoConfiguration.class))
                .withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5",
                        "db.bulkhead.fleet.table=fleet_joined_before_liquibase",
                        "spring.liquibase.enabled=true",
                        "spring.liquibase.change-log=classpath:fleet/changelog/record-the-grant.sql",
                        "spring.liquibase.database-change-log-table=liquibase_history_of_the_fleet_test",
                        "spring.liquibase.database-change-log-lock-table=liquibase_lock_of_the_fleet_test")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    // Liquibase's bean runs the changelog as it is made: it waits for the membership.
                    assertThat(context.getBeanFactory().getBeanDefinition("liquibase").getDependsOn())
                            .contains("dbBulkheadFleetMembership");
                    assertSawTheMembersLease(context, "grant_seen_by_liquibase", "the changelog");
                });
    }

    @Test
    void aBeanThatDependsOnDatabaseInitialisationIsMadeOnlyOnceTheMemberJoined() {
        // Made before the auto-configured beans, were it not for the membership it now depends on.
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5")
                .withBean(LeaseSeenAtStartUp.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LeaseSeenAtStartUp.class).granted)
                            .as("the member's unexpired lease, read on the bean's own connection as it was made")
                            .isGreaterThanOrEqualTo(2);
                });
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "connection-budget | 0     | 0       | must be between 1 and",
            "heartbeat         | 0s    | 0s    | heartbeat must be above 0s",
            "lease-ttl         | 150ms | 150ms | at least two heartbeats (200ms)",
            "weight            | 0     | 0       | weight must be between 1 and",
            "floor             | 11    | 11      | floor must be between 1 and the pool's maximum size 10",
            "table             | a;b   | a;b     | table must be an unquoted identifier"
    })
    void aBadValueFailsStartUpNamingThePropertyAndTheRange(String key, String value, String shown, String allowed) {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet." + key + "=" + value)
                .run(context -> assertThat(context).getFailure()
                        .rootCause()
                        .isInstanceOf(BulkheadConfigurationException.class)
                        .hasMessageContaining("'db.bulkhead.fleet." + key + "'")
                        .hasMessageContaining("'" + shown + "'")
                        .hasMessageContaining(allowed));
    }

    private static DataSource dataSourceOfTheSchema() {
        HikariDataSource side = new HikariDataSource(SharedDatabase.DATABASE.poolConfig(1, "fleet-side"));
        Runtime.getRuntime().addShutdownHook(new Thread(side::close));
        return side;
    }

    @Test
    void thePoolStartsOnItsFloorSoThatWhatRunsBeforeTheFirstGrantOpensNoMore() {
        runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres", "db.bulkhead.fleet.connection-budget=5",
                "spring.datasource.hikari.minimum-idle=10")
                .withBean(StartUpWork.class)
                .run(context -> {
                    StartUpWork startUp = context.getBean(StartUpWork.class);
                    assertThat(startUp.maximumPoolSize).as("one per workload, not the configured 10").isEqualTo(2);
                    assertThat(startUp.sessionName).contains("(db-bulkhead member ");
                    FleetMembership membership = context.getBean(FleetMembership.class);
                    Await.until("the share leased", () -> membership.snapshot().applied() == 5);
                    HikariDataSource pool = context.getBean(DataSource.class).unwrap(HikariDataSource.class);
                    assertThat(pool.getMaximumPoolSize()).as("grown once granted").isEqualTo(5);
                    assertThat(pool.getMinimumIdle()).isEqualTo(5);
                });
    }

    @Test
    void theMembersLinesGoToTheApplicationsLogFromItsJoinToItsLeaveNotThroughJavaUtilLogging(
            CapturedOutput output) {
        // java.util.logging's own shutdown hook may run before Spring's: a line written through it while the
        // application stops is lost, whatever bridge the application installed.
        Logger julLogger = Logger.getLogger(FleetMember.class.getName());
        List<LogRecord> throughJul = new CopyOnWriteArrayList<>();
        Handler recorder = new Handler() {
            @Override
            public void publish(LogRecord logRecord) {
                throughJul.add(logRecord);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        julLogger.addHandler(recorder);
        try {
            runner.withPropertyValues("db.bulkhead.fleet.coordination=postgres",
                    "db.bulkhead.fleet.connection-budget=5").run(context -> {
                        FleetMembership membership = context.getBean(FleetMembership.class);
                        Await.until("the share leased", () -> membership.snapshot().applied() == 5);
                    });
        } finally {
            julLogger.removeHandler(recorder);
        }

        assertThat(throughJul).extracting(LogRecord::getMessage).isEmpty();
        assertThat(output.getOut() + output.getErr())
                .containsPattern("dev\\.dbbulkhead\\.fleet\\.FleetMember\\s.*Fleet member \\S+ joined the fleet")
                .containsPattern("dev\\.dbbulkhead\\.fleet\\.FleetMember\\s.*Fleet member \\S+ left the fleet");
    }

    /** A bean of the application that uses the database as it is made, and says it needs it initialised. */
    @DependsOnDatabaseInitialization
    static final class LeaseSeenAtStartUp {

        /** What the fleet's table grants the member whose session this is; 0 without a table or a lease. */
        final int granted;

        LeaseSeenAtStartUp(DataSource dataSource, BulkheadProperties properties) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            String table = properties.getFleet().getTable();
            boolean exists = Boolean.TRUE.equals(
                    jdbc.queryForObject("SELECT to_regclass(?) IS NOT NULL", Boolean.class, table));
            this.granted = !exists ? 0 : jdbc.queryForObject("SELECT coalesce(max(granted), 0) FROM " + table
                    + " WHERE session_name = current_setting('application_name') AND lease_expires_at > now()",
                    Integer.class);
        }
    }

    /** Work that runs while the application starts, before the fleet membership does: as schema initialisation. */
    static final class StartUpWork {

        final int maximumPoolSize;
        final String sessionName;

        StartUpWork(DataSource dataSource) throws SQLException {
            HikariDataSource pool = dataSource.unwrap(HikariDataSource.class);
            this.sessionName = new JdbcTemplate(dataSource).queryForObject(
                    "SELECT current_setting('application_name')", String.class);
            this.maximumPoolSize = pool.getMaximumPoolSize();
        }
    }

    /** The start-up failure of a context that failed, as the refusal of a property: the most specific cause. */
    private static AbstractThrowableAssert<?, ? extends Throwable> startUpRefusal(
            AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        return assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                .isInstanceOf(BulkheadConfigurationException.class);
    }

    /** A coordinator that cannot be reached, counting the renewals asked of it. */
    private static final class RenewalsRefused implements FleetCoordinator {

        final AtomicInteger renewals = new AtomicInteger();

        @Override
        public Lease renew(LeaseRequest request) {
            renewals.incrementAndGet();
            throw new FleetUnavailableException("unreachable in this test", new IllegalStateException("refused"));
        }

        @Override
        public void leave(String memberId) {
        }
    }
}
