package dev.dbbulkhead.autoconfigure.saturation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint.DatabaseDescriptor;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.BulkheadConfigurationException;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Permit;
import dev.dbbulkhead.autoconfigure.actuate.endpoint.BulkheadEndpointAutoConfiguration;
import dev.dbbulkhead.limit.ConcurrencyCeiling;
import dev.dbbulkhead.metrics.DatabaseSignalsMeterBinder;
import dev.dbbulkhead.saturation.DatabaseSampler;
import dev.dbbulkhead.saturation.SignalAccess;
import dev.dbbulkhead.saturation.support.DatabaseSignalsSampling;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class BulkheadDatabaseSignalsAutoConfigurationTests {

    private static final String SIGNALS = "db.bulkhead.database.signals.";
    private static final String ORDERS = "db.bulkhead.workloads.orders.";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class,
                    BulkheadDatabaseSignalsAutoConfiguration.class, BulkheadEndpointAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2", "spring.jmx.enabled=true",
                    "management.endpoints.jmx.exposure.include=dbbulkheads");

    @Test
    void theSignalsAreOffByDefaultSoNoSamplerAndNoConnectionOfItsOwn() {
        runner.run(context -> {
            assertThat(context).hasNotFailed()
                    .doesNotHaveBean(DatabaseSignalsSampling.class)
                    .doesNotHaveBean(DatabaseSignalsMeterBinder.class);
            assertThat(context.getBean(BulkheadsEndpoint.class).bulkheads().database()).isNull();
        });
    }

    @Test
    void theEndpointShowsWhatTheSamplerLastReadAndWhatItsRoleSees() {
        runner.withPropertyValues(SIGNALS + "enabled=true", SIGNALS + "interval=100ms",
                SIGNALS + "query-timeout=100ms").run(context -> {
                    DatabaseSampler sampler = context.getBean(DatabaseSignalsSampling.class).sampler();
                    Await.until("a sample", () -> sampler.latest().isPresent());

                    DatabaseDescriptor database = context.getBean(BulkheadsEndpoint.class).bulkheads().database();
                    assertThat(database).isNotNull();
                    assertThat(database.access()).isEqualTo("whole_server");
                    assertThat(database.interval()).isEqualTo("100ms");
                    assertThat(database.serverCpus()).as("not configured").isNull();
                    assertThat(database.sampledAgo()).isNotNull();
                    assertThat(database.commits()).isNotNull().isPositive();
                    assertThat(database.queryTime()).as("measured, to the microsecond, as a configuration writes it")
                            .matches("\\d+(us|ms|s)");
                    assertThat(database.failuresInARow()).isZero();
                    assertThat(database.activeSessions().keySet())
                            .isSubsetOf("cpu", "lock", "lwlock", "io", "ipc", "client", "other");
                });
    }

    @Test
    void enabledTheSamplerReadsTheServerOnASessionOfItsOwnAndTheMetersShowWhatItRead() {
        runner.withPropertyValues(SIGNALS + "enabled=true", SIGNALS + "interval=100ms",
                SIGNALS + "query-timeout=100ms", SIGNALS + "server-cpus=2").run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(DatabaseSignalsMeterBinder.class);
                    DatabaseSignalsSampling sampling = context.getBean(DatabaseSignalsSampling.class);
                    DatabaseSampler sampler = sampling.sampler();
                    Await.until("a sample", () -> sampler.latest().isPresent());
                    context.getBean(DatabaseSignalsMeterBinder.class).bindTo(context.getBean(MeterRegistry.class));

                    assertThat(sampling.access()).isEqualTo(SignalAccess.WHOLE_SERVER);
                    assertThat(sampler.settings().serverCpus()).isEqualTo(2);
                    assertThat(sampler.settings().interval()).isEqualTo(Duration.ofMillis(100));
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get(DatabaseSignalsMeterBinder.COMMITS).functionCounter().count()).isPositive();
                    assertThat(meters.get(DatabaseSignalsMeterBinder.SAMPLE_DURATION).timeGauge()
                            .value(TimeUnit.NANOSECONDS)).isPositive();
                    assertThat(meters.get(DatabaseSignalsMeterBinder.SESSIONS).gauges()).hasSize(7);
                    assertThat(meters.get(DatabaseSignalsMeterBinder.SAMPLE_FAILURES).gauge().value()).isZero();
                    assertThat(samplerSessions()).as("the sampler's session on the server").isEqualTo(1);
                });
    }

    @Test
    void stoppedTheApplicationClosesTheSamplersSession() {
        runner.withPropertyValues(SIGNALS + "enabled=true", SIGNALS + "interval=100ms", SIGNALS + "query-timeout=100ms")
                .run(context -> {
                    DatabaseSampler sampler = context.getBean(DatabaseSignalsSampling.class).sampler();
                    Await.until("a sample", () -> sampler.latest().isPresent());
                    context.close();

                    assertThat(sampler.sampleOnce()).as("closed").isFalse();
                    // The server ends a session's process once it reads the close; the test waits for that.
                    Await.until("the sampler's session gone from the server", () -> samplerSessions() == 0);
                });
    }

    @Test
    void aWorkloadThatFollowsTheDatabaseWithoutItsSignalsStopsStartUpNamingTheKey() {
        runner.withPropertyValues(ORDERS + "limit.database=steer").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(BulkheadConfigurationException.class)
                    .hasMessageContaining(ORDERS + "limit.database").hasMessageContaining("STEER")
                    .hasMessageContaining("needs db.bulkhead.database.signals.enabled=true");
        });
        runner.withPropertyValues(SIGNALS + "enabled=true", ORDERS + "limit.database=recommend",
                ORDERS + "limit.min-concurrent=3").run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining(ORDERS + "limit.min-concurrent").hasMessageContaining("between 1 and"
                                + " max-concurrent (B) = 2"));
    }

    @Test
    void lockContentionOnTheServerLowersASteeredWorkloadsBWhileARecommendedOneOnlyShowsItsCap() throws Exception {
        SharedDatabase.DATABASE.execute("CREATE TABLE IF NOT EXISTS limit_account (id int PRIMARY KEY, n int)",
                "INSERT INTO limit_account VALUES (1, 0) ON CONFLICT DO NOTHING");
        runner.withPropertyValues(SIGNALS + "enabled=true", SIGNALS + "interval=100ms", SIGNALS + "query-timeout=100ms",
                ORDERS + "limit.database=steer", "db.bulkhead.workloads.reports.max-concurrent=4",
                "db.bulkhead.workloads.reports.limit.database=recommend",
                "db.bulkhead.workloads.reports.limit.criticality=sheddable").run(context -> {
                    AdmissionGate orders = context.getBean(BulkheadRegistry.class).template("orders").gate();
                    AdmissionGate reports = context.getBean(BulkheadRegistry.class).template("reports").gate();
                    try (LockWaiters waiters = LockWaiters.on(SharedDatabase.DATABASE, "limit_account", 3);
                         Permit running = orders.acquire()) {
                        Await.until("orders lowered", () -> orders.config().maxConcurrent() == 1);

                        BulkheadsEndpoint endpoint = context.getBean(BulkheadsEndpoint.class);
                        DatabaseDescriptor database = endpoint.bulkheads().database();
                        assertThat(database.limits().get("orders")).extracting("mode", "criticality", "cap")
                                .containsExactly("steer", "default", 1);
                        assertThat(database.limits().get("reports")).extracting("mode", "criticality", "cap")
                                .as("runs nothing: no reason to recommend less").containsExactly("recommend",
                                        "sheddable", 4);
                        assertThat(reports.config().maxConcurrent()).as("only recommended").isEqualTo(4);
                        Await.until("a rate of writes measured at B = 1", () -> !endpoint.bulkheads().database()
                                .limits().get("orders").writesPerSecondByB().isEmpty());
                        assertThat(endpoint.bulkheads().database().limits().get("orders").writesPerSecondByB())
                                .as("the one steered workload: the evidence of its B on a hot row").containsOnlyKeys(1);
                        assertThat(database.limits().get("reports").writesPerSecondByB()).as("only recommended")
                                .isEmpty();
                        assertThat(database.saturation()).isNotNull();
                        assertThat(database.saturation().lockWaiters()).isGreaterThanOrEqualTo(3);
                        MeterRegistry meters = context.getBean(MeterRegistry.class);
                        context.getBean(DatabaseSignalsMeterBinder.class).bindTo(meters);
                        assertThat(meters.get(DatabaseSignalsMeterBinder.LIMIT).tag("workload", "orders")
                                .tag("mode", "steer").gauge().value()).isEqualTo(1.0);

                        endpoint.resize("orders", 2, null);
                        assertThat(orders.config().maxConcurrent()).as("a resize is a request the cap bounds")
                                .isEqualTo(1);
                        assertThat(context.getBean(DatabaseSignalsSampling.class).limits().orElseThrow()
                                .ceiling("orders").orElseThrow().requested()).isEqualTo(2);
                    }
                });
    }

    @Test
    void aRecommendedWorkloadUnderLockContentionShowsOneBWithItsSupportInTheEndpointTheMeterAndTheLog(
            CapturedOutput output) throws Exception {
        SharedDatabase.DATABASE.execute("CREATE TABLE IF NOT EXISTS recommend_account (id int PRIMARY KEY, n int)",
                "INSERT INTO recommend_account VALUES (1, 0) ON CONFLICT DO NOTHING");
        runner.withPropertyValues(SIGNALS + "enabled=true", SIGNALS + "interval=100ms", SIGNALS + "query-timeout=100ms",
                SIGNALS + "recommendation-window=30s", "db.bulkhead.workloads.reports.max-concurrent=4",
                "db.bulkhead.workloads.reports.limit.database=recommend").run(context -> {
                    AdmissionGate reports = context.getBean(BulkheadRegistry.class).template("reports").gate();
                    BulkheadsEndpoint endpoint = context.getBean(BulkheadsEndpoint.class);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    context.getBean(DatabaseSignalsMeterBinder.class).bindTo(meters);
                    assertThat(meters.get(DatabaseSignalsMeterBinder.RECOMMENDED_LIMIT).tag("workload", "reports")
                            .gauge().value()).as("no samples yet").isNaN();
                    assertThat(endpoint.bulkheads().database().limits().get("reports").recommendation()).isNull();
                    // One operation of its own runs while three sessions wait for a lock: each sample points to B = 1.
                    try (LockWaiters waiters = LockWaiters.on(SharedDatabase.DATABASE, "recommend_account", 3);
                         Permit running = reports.acquire()) {
                        Await.until("a recommendation written", () -> output.getAll()
                                .contains("The B recommended for workload 'reports' is now 1: the median of the B"));

                        BulkheadsEndpoint.DatabaseLimitDescriptor limit = endpoint.bulkheads().database().limits().get("reports");
                        assertThat(limit.cap()).isEqualTo(1);
                        assertThat(limit.recommendation()).isNotNull();
                        assertThat(limit.recommendation()).extracting("limit", "middleHalf", "window")
                                .containsExactly(1, List.of(1, 1), "30s");
                        assertThat(limit.recommendation().samples()).isGreaterThanOrEqualTo(5);
                        assertThat(limit.recommendation().saturatedSamples()).as("every sample with evidence")
                                .isEqualTo(limit.recommendation().samples());
                        assertThat(meters.get(DatabaseSignalsMeterBinder.RECOMMENDED_LIMIT).tag("workload", "reports")
                                .gauge().value()).isEqualTo(1.0);
                        assertThat(reports.config().maxConcurrent()).as("only recommended").isEqualTo(4);
                    }
                });
    }

    @Test
    void withALatencyLimitTooTheWorkloadAsksForItsBThroughTheDatabasesCap() {
        runner.withPropertyValues(SIGNALS + "enabled=true", ORDERS + "limit.database=steer",
                ORDERS + "limit.mode=adaptive", ORDERS + "limit.min-concurrent=1").run(context -> {
                    BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");
                    ConcurrencyCeiling ceiling = context.getBean(DatabaseSignalsSampling.class).limits().orElseThrow()
                            .ceiling("orders").orElseThrow();

                    // The latency limit's first sample pins B to its floor to measure the hold time without load.
                    orders.execute(status -> 1);

                    assertThat(ceiling.requested()).as("pinned through the ceiling").isEqualTo(1);
                    assertThat(orders.gate().config().maxConcurrent()).isEqualTo(1);
                });
    }

    private static int samplerSessions() {
        try (Connection observer = SharedDatabase.DATABASE.connect();
             Statement statement = observer.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE query LIKE '%pg_stat_database counts%' AND pid <> pg_backend_pid()")) {
            row.next();
            return row.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aValueOutOfRangeStopsStartUpNamingTheKeyTheValueAndTheRange() {
        runner.withPropertyValues(SIGNALS + "enabled=true", SIGNALS + "interval=50ms").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(BulkheadConfigurationException.class)
                    .hasMessageContaining(SIGNALS + "interval").hasMessageContaining("50ms")
                    .hasMessageContaining("between 100ms and 1h");
        });
        runner.withPropertyValues(SIGNALS + "enabled=true", SIGNALS + "interval=1s", SIGNALS + "query-timeout=2s")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining(SIGNALS + "query-timeout").hasMessageContaining("at most the interval"));
        runner.withPropertyValues(SIGNALS + "enabled=true", SIGNALS + "server-cpus=0")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining(SIGNALS + "server-cpus").hasMessageContaining("between 1 and 4096"));
        runner.withPropertyValues(SIGNALS + "enabled=true", SIGNALS + "recommendation-window=5s")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .isInstanceOf(BulkheadConfigurationException.class)
                        .hasMessageContaining(SIGNALS + "recommendation-window").hasMessageContaining("'5s'")
                        .hasMessageContaining("between 10s and 1h"));
    }

    @Test
    void onADatabaseThatIsNotPostgresqlStartUpGoesOnWithAFindingAndNothingIsSampled(CapturedOutput output) {
        new ApplicationContextRunner()
                .withConfiguration(SharedDatabase.BOOT_JDBC)
                .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class,
                        BulkheadDatabaseSignalsAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:signals", "spring.datasource.username=sa",
                        "db.bulkhead.workloads.orders.max-concurrent=2", SIGNALS + "enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    DatabaseSignalsSampling sampling = context.getBean(DatabaseSignalsSampling.class);
                    Await.until("the finding", () -> sampling.access() == SignalAccess.NOT_POSTGRESQL
                            && output.getAll().contains("is not PostgreSQL"));

                    assertThat(output.getAll()).contains("The database is not PostgreSQL: its signals are not"
                            + " sampled, and limits follow latency alone");
                    assertThat(sampling.sampler().latest()).isEmpty();
                    assertThat(sampling.sampler().failuresInARow()).isZero();
                });
    }
}
