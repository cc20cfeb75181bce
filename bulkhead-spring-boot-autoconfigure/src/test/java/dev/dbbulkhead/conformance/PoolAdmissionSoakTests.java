package dev.dbbulkhead.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.RequestCommits;
import dev.dbbulkhead.gate.WorkloadBinding;
import dev.dbbulkhead.jdbc.ungated.DetectionSettings;
import dev.dbbulkhead.jdbc.ungated.JobRefusals;
import dev.dbbulkhead.jdbc.ungated.PoolAdmission;
import dev.dbbulkhead.jdbc.ungated.StackSampling;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionDetector;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionListener;
import dev.dbbulkhead.jdbc.ungated.WatchedDataSource;
import dev.dbbulkhead.jdbc.ungated.WorkRules;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import dev.dbbulkhead.transaction.DeadlinePoolWait;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fault-injection soak of admission where connections are taken, on a real PostgreSQL, seeded: requests of one to
 * three operations, bound to a workload or left to the default, each operation a transaction taken straight from the
 * watched pool — committed, read-only, timed out by the server, failed by the application, its connection killed on
 * the server, or with a second connection nested in it — against a workload that refuses, one that waits when full
 * and the default, while the gates shut down with requests in flight at the end. Checked from outside: the server's
 * busy sessions never exceed the workloads' B plus the nested connections then open; then every place and every
 * connection is back, no later operation of a request admitted once was refused for the shutdown, and the
 * waiting workload refused nothing for being full.
 *
 * <pre>{@code ./mvnw -pl bulkhead-spring-boot-autoconfigure -am verify -Dtest=PoolAdmissionSoakTests \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dsoak.operations=100000 -Dsoak.seed=7}</pre>
 */
@DisplayName("Fault-injection soak of admission where connections are taken (real PostgreSQL, seeded)")
@Timeout(value = 20, unit = TimeUnit.MINUTES) // only against a hang
class PoolAdmissionSoakTests {

    static {
        // Connections killed on the server are the point here; HikariCP's warning with a stack trace for each would
        // drown the log.
        System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari.pool.ProxyConnection", "error");
        System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari.pool.PoolBase", "error");
    }

    private static final long DEFAULT_SEED = 20_261_206L;
    private static final int DEFAULT_OPERATIONS = 1_500;
    private static final int DRIVERS = 12;
    private static final int POOL_SIZE = 8;
    private static final String APPLICATION = "pool-admission-soak";

    private final Map<String, AdmissionGate> gates = Map.of(
            "web", new AdmissionGate("web", GateConfig.builder().maxConcurrent(3).maxQueued(4)
                    .queueWait(Duration.ofMillis(20)).build()),
            // A workload that waits when full: a waiting room no arrival fills.
            "jobs", new AdmissionGate("jobs", GateConfig.builder().maxConcurrent(2).maxQueued(Integer.MAX_VALUE / 2)
                    .queueWait(Duration.ofSeconds(30)).build()),
            "other", new AdmissionGate("other", GateConfig.builder().maxConcurrent(1).maxQueued(2)
                    .queueWait(Duration.ofMillis(20)).build()));
    private final int placesInAll = gates.values().stream().mapToInt(gate -> gate.config().maxConcurrent()).sum();
    private final AtomicInteger nestedOpen = new AtomicInteger();
    private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    private final List<String> violations = new ArrayList<>();

    @Test
    @DisplayName("mixed faults, nested connections, a waiting workload and a shutdown with requests in flight: the bound holds on the server, everything is back")
    void soak() throws Exception {
        long seed = Long.getLong("soak.seed", DEFAULT_SEED);
        int operations = Integer.getInteger("soak.operations", DEFAULT_OPERATIONS);
        System.out.printf("pool admission soak: seed=%d operations=%d (repeat with -Dsoak.seed=%d"
                + " -Dsoak.operations=%d)%n", seed, operations, seed, operations);
        TestDatabase database = PostgresFixture.freshSchema();
        database.execute("CREATE TABLE entry (id bigserial PRIMARY KEY, note text NOT NULL)");
        HikariConfig config = database.poolConfig(POOL_SIZE, "soak-" + database.schema());
        config.addDataSourceProperty("ApplicationName", APPLICATION);
        config.setConnectionTimeout(5_000);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            PoolAdmission admission = new PoolAdmission(gates::get, "other", WorkRules.none(),
                    DeadlinePoolWait.atOnceFor(pool), new JobRefusals(JobRefusals.Listener.NONE),
                    StackSampling.defaults());
            UngatedConnectionDetector detector = new UngatedConnectionDetector("soak", DetectionSettings.defaults(),
                    UngatedConnectionListener.NONE);
            WatchedDataSource dataSource = new WatchedDataSource(pool, detector, DeadlinePoolWait.forPool(pool),
                    admission);

            AtomicInteger mostBusy = new AtomicInteger();
            Connection side = database.connect();
            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
            sampler.scheduleWithFixedDelay(() -> sampleTheServer(side, mostBusy), 0, 2, TimeUnit.MILLISECONDS);

            AtomicInteger remaining = new AtomicInteger(operations);
            AtomicBoolean shutDown = new AtomicBoolean();
            // Counted down by the drivers once a tenth of the plan is left: the gates then shut down with requests in
            // flight, which finish, while new ones are refused.
            CountDownLatch tenthLeft = new CountDownLatch(1);
            List<Thread> drivers = new ArrayList<>();
            for (int i = 0; i < DRIVERS; i++) {
                Random random = new Random(seed + i);
                drivers.add(Thread.ofVirtual().start(() -> drive(dataSource, random, remaining, shutDown,
                        () -> {
                            if (remaining.get() <= operations / 10) {
                                tenthLeft.countDown();
                            }
                        })));
            }
            tenthLeft.await();
            shutDown.set(true);
            gates.values().forEach(AdmissionGate::shutDown);
            for (Thread driver : drivers) {
                assertThat(driver.join(Duration.ofMinutes(5))).as("a driver finished").isTrue();
            }
            for (AdmissionGate gate : gates.values()) {
                assertThat(gate.awaitDrained(Duration.ofSeconds(30))).as("%s drained", gate.workload()).isTrue();
            }
            sampler.shutdown();
            assertThat(sampler.awaitTermination(1, TimeUnit.MINUTES)).as("the sampler stopped").isTrue();
            side.close();

            System.out.printf("pool admission soak: outcomes %s, most busy sessions %d of %d places%n",
                    new java.util.TreeMap<>(outcomes), mostBusy.get(), placesInAll);
            synchronized (violations) {
                assertThat(violations).as("rules broken").isEmpty();
            }
            for (AdmissionGate gate : gates.values()) {
                assertThat(gate.active()).as("%s running", gate.workload()).isZero();
                assertThat(gate.waiting()).as("%s waiting", gate.workload()).isZero();
            }
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("every connection back").isZero();
            assertThat(count("jobs ADMISSION_FULL")).as("the waiting workload refused nothing for being full").isZero();
            assertThat(count("committed")).as("work was done").isPositive();
        }
    }

    private long count(String outcome) {
        LongAdder adder = outcomes.get(outcome);
        return adder == null ? 0 : adder.sum();
    }

    private void outcome(String name) {
        outcomes.computeIfAbsent(name, any -> new LongAdder()).increment();
    }

    private void violation(String rule) {
        synchronized (violations) {
            violations.add(rule);
        }
    }

    /** Runs requests until the plan is spent. */
    private void drive(WatchedDataSource dataSource, Random random, AtomicInteger remaining, AtomicBoolean shutDown,
                       Runnable progress) {
        while (remaining.get() > 0) {
            progress.run();
            String workload = switch (random.nextInt(3)) {
                case 0 -> "web";
                case 1 -> "jobs";
                default -> null;
            };
            int operationsOfRequest = 1 + random.nextInt(3);
            try (RequestCommits.Scope request = RequestCommits.track();
                 WorkloadBinding.Scope bound = workload == null ? null : WorkloadBinding.bind(workload)) {
                boolean admittedOnce = false;
                for (int i = 0; i < operationsOfRequest && remaining.getAndDecrement() > 0; i++) {
                    boolean afterShutdown = shutDown.get();
                    try {
                        operation(dataSource, random);
                        admittedOnce = true;
                    } catch (BulkheadRejectedException refused) {
                        String name = refused.workload() + " " + refused.reason();
                        outcome(name);
                        if (refused.reason() == RejectionReason.SHUTTING_DOWN && admittedOnce) {
                            violation("a later operation of a request admitted once was refused for the shutdown");
                        }
                        if (!afterShutdown && refused.reason() == RejectionReason.SHUTTING_DOWN) {
                            violation("refused for a shutdown that had not begun");
                        }
                        break;
                    } catch (SQLException | RuntimeException fault) {
                        // A fault of the plan: the operation was admitted and its place is back.
                        admittedOnce = true;
                        outcome("fault " + fault.getClass().getSimpleName());
                    }
                }
            }
        }
        progress.run();
    }

    /** One transaction on a connection taken from the watched pool, with the fault the plan draws. */
    private void operation(WatchedDataSource dataSource, Random random) throws SQLException {
        int fault = random.nextInt(100);
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                if (fault < 8) {
                    statement.execute("SET LOCAL statement_timeout = '5ms'");
                    statement.execute("SELECT pg_sleep(0.05)");
                } else if (fault < 14) {
                    statement.execute("INSERT INTO entry (note) VALUES ('failed')");
                    throw new IllegalStateException("the application failed mid-transaction");
                } else if (fault < 18) {
                    statement.execute("SELECT pg_terminate_backend(pg_backend_pid())");
                } else if (fault < 28) {
                    nested(dataSource);
                } else if (fault < 50) {
                    connection.setReadOnly(true);
                    try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM entry")) {
                        rows.next();
                    }
                } else {
                    statement.execute("INSERT INTO entry (note) VALUES ('committed')");
                    if (random.nextInt(4) == 0) {
                        statement.execute("SELECT pg_sleep(0.002)");
                    }
                }
                connection.commit();
                outcome("committed");
            } catch (SQLException | RuntimeException failed) {
                if (!connection.isClosed()) {
                    try {
                        connection.rollback();
                    } catch (SQLException broken) {
                        failed.addSuppressed(broken);
                    }
                }
                throw failed;
            }
        }
    }

    /** A second connection taken while the first is held: a REQUIRES_NEW, which takes one only when one is free. */
    private void nested(WatchedDataSource dataSource) throws SQLException {
        nestedOpen.incrementAndGet();
        try (Connection second = dataSource.getConnection(); Statement statement = second.createStatement()) {
            statement.execute("SELECT 1");
            outcome("nested");
        } catch (SQLException noneFree) {
            outcome("nested refused at once");
        } finally {
            nestedOpen.decrementAndGet();
        }
    }

    /** Samples the server's busy sessions of the pool: never more than the places plus the nested connections open. */
    private void sampleTheServer(Connection side, AtomicInteger mostBusy) {
        try (Statement statement = side.createStatement()) {
            int nestedBefore = nestedOpen.get();
            int busy;
            try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_stat_activity"
                    + " WHERE application_name = '" + APPLICATION + "'"
                    + " AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')")) {
                rows.next();
                busy = rows.getInt(1);
            }
            int nested = Math.max(nestedBefore, nestedOpen.get());
            mostBusy.accumulateAndGet(busy, Math::max);
            if (busy > placesInAll + nested) {
                violation(busy + " busy sessions on the server, above " + placesInAll + " places + " + nested
                        + " nested connections");
            }
        } catch (SQLException failed) {
            violation("the sampler failed: " + failed);
        }
    }
}
