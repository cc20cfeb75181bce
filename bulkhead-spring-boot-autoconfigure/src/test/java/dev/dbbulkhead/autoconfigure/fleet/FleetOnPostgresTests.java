package dev.dbbulkhead.autoconfigure.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.fleet.FleetCoordinator;
import dev.dbbulkhead.fleet.FleetLog;
import dev.dbbulkhead.fleet.FleetMember;
import dev.dbbulkhead.fleet.FleetSettings;
import dev.dbbulkhead.fleet.GateShares;
import dev.dbbulkhead.fleet.PostgresFleetCoordinator;
import dev.dbbulkhead.fleet.support.HikariPoolShare;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.limit.ConcurrencyCeiling;
import dev.dbbulkhead.share.WeightedShares;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several instances, each with its own pool, gates and coordinator, share one budget through a table of the real
 * PostgreSQL while they join, leave cleanly and die. A sampler watches all along that the grants of unexpired leases
 * never add up to more than the budget, and that no live instance's pool maximum or sum of B passes its share; after
 * each change the shares reach the fair split, applied by every instance and granted in the table.
 *
 * <p>How many heartbeats that takes is not asserted here but in {@code FleetConvergenceTests}, on a clock the test
 * moves: here it depends on how fast the machine runs. A shrinking instance gives its share back only once the
 * transactions its load threads run under the larger share have let go of their connections, and on a loaded machine
 * a thread holding one may not run again for several heartbeats; and this thread, polling for the fair split, may
 * notice it heartbeats after it happened. A load average of 10 on 2 cores is enough to count 9 renewals of the
 * slowest member here where the protocol needs at most 6, with no rule broken. Safety, by contrast, is asserted at
 * every sample: it holds however slow the machine is.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FleetOnPostgresTests {

    private static final int BUDGET = 12;
    private static final int POOL_SIZE = 10;
    private static final int FLOOR = 2;
    private static final Duration HEARTBEAT = Duration.ofMillis(100);
    /** Long enough that heartbeats delayed on a busy, shared machine do not let a lease lapse. */
    private static final Duration LEASE_TTL = Duration.ofMillis(2000);
    /** How long a refused caller of the load backs off, so that refusals do not spin the machine's cores. */
    private static final long BACK_OFF_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** The sampler's pause between two samples, so that it leaves the machine to the instances. */
    private static final long SAMPLE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final TestDatabase database = PostgresFixture.freshSchema();
    private final Map<String, Instance> live = new TreeMap<>();
    private final List<Instance> all = new ArrayList<>();
    private final Queue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicLong samples = new AtomicLong();
    private final AtomicInteger mostGrantedSeen = new AtomicInteger();
    private final AtomicBoolean sampling = new AtomicBoolean(true);
    private Thread sampler;
    private Connection sideConnection;

    @AfterEach
    void stopEverything() throws InterruptedException, SQLException {
        sampling.set(false);
        if (sampler != null) {
            sampler.join();
        }
        for (Instance instance : all) {
            instance.close();
        }
        if (sideConnection != null) {
            sideConnection.close();
        }
    }

    @Test
    void theGrantsOfUnexpiredLeasesNeverPassTheBudgetWhileInstancesJoinLeaveAndDie() throws Exception {
        join("a");
        join("b");
        awaitFairSplit("two instances started");
        startSampler();

        join("c");
        awaitFairSplit("c joined");

        join("d");
        awaitFairSplit("d joined");

        Instance leaving = live.remove("d");
        leaving.leave();
        assertThat(grantsInTable()).as("a clean leave gives the share back at once").doesNotContainKey("d");
        awaitFairSplit("d left");

        Instance killed = live.remove("c");
        killed.kill();
        Await.until("c's lease expired on the server's clock", () -> !unexpiredLeases().contains("c"));
        awaitFairSplit("c's lease expired");

        sampling.set(false);
        sampler.join();
        assertThat(violations).as("what the sampler saw").isEmpty();
        assertThat(samples.get()).as("samples taken").isPositive();
        assertThat(mostGrantedSeen.get()).as("most connections granted at once").isEqualTo(BUDGET);
    }

    private void join(String name) {
        Instance instance = new Instance(name);
        all.add(instance);
        live.put(name, instance);
        instance.start();
    }

    /** Waits until every live instance applies its fair share and the table grants exactly those shares. */
    private void awaitFairSplit(String change) {
        List<String> names = List.copyOf(live.keySet());
        int[] fair = WeightedShares.split(BUDGET,
                names.stream().map(name -> new WeightedShares.Claim(1, POOL_SIZE)).toList());
        Map<String, Integer> expected = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            expected.put(names.get(i), fair[i]);
        }
        Await.until("fair split " + expected + " after " + change, () -> {
            for (String name : names) {
                FleetMember.Snapshot snapshot = live.get(name).member.snapshot();
                if (snapshot.applied() != expected.get(name) || snapshot.granted() != expected.get(name)) {
                    return false;
                }
            }
            return grantsInTable().equals(expected);
        });
        assertThat(violations).as("what the sampler saw until the fair split after %s", change).isEmpty();
    }

    private void startSampler() {
        sampler = Thread.ofPlatform().name("fleet-sampler").start(() -> {
            try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
                while (sampling.get()) {
                    sample(statement);
                    LockSupport.parkNanos(SAMPLE_PAUSE_NANOS);
                }
            } catch (SQLException e) {
                violations.add("sampler failed: " + e);
            }
        });
    }

    private void sample(Statement statement) throws SQLException {
        try (ResultSet sum = statement.executeQuery("SELECT coalesce(sum(granted), 0) FROM "
                + PostgresFleetCoordinator.DEFAULT_TABLE + " WHERE lease_expires_at > clock_timestamp()")) {
            sum.next();
            int granted = sum.getInt(1);
            mostGrantedSeen.accumulateAndGet(granted, Math::max);
            if (granted > BUDGET) {
                violations.add("unexpired leases grant " + granted + " > budget " + BUDGET);
            }
        }
        for (Instance instance : List.copyOf(all)) {
            if (instance.running()) {
                instance.checkWithinShare();
            }
        }
        samples.incrementAndGet();
    }

    private Map<String, Integer> grantsInTable() {
        return query("SELECT member_id, granted FROM " + PostgresFleetCoordinator.DEFAULT_TABLE);
    }

    private List<String> unexpiredLeases() {
        return List.copyOf(query("SELECT member_id, granted FROM " + PostgresFleetCoordinator.DEFAULT_TABLE
                + " WHERE lease_expires_at > clock_timestamp()").keySet());
    }

    private Map<String, Integer> query(String sql) {
        Map<String, Integer> rows = new HashMap<>();
        try {
            if (sideConnection == null) {
                sideConnection = database.connect();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        try (Statement statement = sideConnection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
            while (result.next()) {
                rows.put(result.getString(1), result.getInt(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    /** One application instance: its pool, two workloads' gates, its coordinator, its heartbeat and some load. */
    private final class Instance {

        final String name;
        final HikariDataSource pool;
        final HikariDataSource coordinatorPool;
        final List<AdmissionGate> gates;
        final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
        final FleetMember member;
        final AtomicBoolean loading = new AtomicBoolean(true);
        final List<Thread> load = new ArrayList<>();
        final AtomicBoolean running = new AtomicBoolean();

        Instance(String name) {
            this.name = name;
            this.pool = new HikariDataSource(database.poolConfig(POOL_SIZE, "fleet-" + name));
            this.coordinatorPool = new HikariDataSource(database.poolConfig(1, "fleet-" + name + "-lease"));
            this.gates = List.of(
                    new AdmissionGate("orders", GateConfig.builder().maxConcurrent(6).maxQueued(4)
                            .queueWait(Duration.ofMillis(20)).build()),
                    new AdmissionGate("reports", GateConfig.builder().maxConcurrent(4).build()));
            FleetCoordinator coordinator = new PostgresFleetCoordinator(coordinatorPool,
                    PostgresFleetCoordinator.DEFAULT_TABLE, BUDGET);
            GateShares gateShares = new GateShares(gates.stream().map(ConcurrencyCeiling::of).toList());
            this.member = new FleetMember(coordinator,
                    new FleetSettings(name, 1, POOL_SIZE, FLOOR, HEARTBEAT, LEASE_TTL, null),
                    List.of(gateShares, new HikariPoolShare(pool)), scheduler, FleetLog.systemLogger());
        }

        void start() {
            member.start();
            running.set(true);
            for (AdmissionGate gate : gates) {
                JdbcBulkhead bulkhead = new JdbcBulkhead(gate, pool);
                for (int i = 0; i < 3; i++) {
                    load.add(Thread.ofVirtual().name("load-" + name + "-" + gate.workload()).start(() -> {
                        while (loading.get()) {
                            try {
                                bulkhead.transaction(connection -> {
                                    try (Statement statement = connection.createStatement()) {
                                        statement.execute("SELECT pg_sleep(0.002)");
                                    }
                                    return null;
                                });
                            } catch (BulkheadRejectedException | SQLException refused) {
                                // Refusals are how a shrunken instance sheds its load; the sampler checks the limits.
                                LockSupport.parkNanos(BACK_OFF_NANOS);
                            }
                        }
                    }));
                }
            }
        }

        boolean running() {
            return running.get();
        }

        /** The pool maximum and the sum of B, read between two snapshots, within the share either allowed. */
        void checkWithinShare() {
            FleetMember.Snapshot first = member.snapshot();
            int poolMaximum = pool.getMaximumPoolSize();
            int sumOfB = gates.stream().mapToInt(gate -> gate.config().maxConcurrent()).sum();
            FleetMember.Snapshot second = member.snapshot();
            int allowed = Math.max(allowed(first), allowed(second));
            if (running() && (poolMaximum > allowed || sumOfB > allowed)) {
                violations.add(name + ": pool maximum " + poolMaximum + ", sum of B " + sumOfB + " > share "
                        + allowed + " (" + first + " / " + second + ")");
            }
        }

        private int allowed(FleetMember.Snapshot snapshot) {
            return snapshot.status() == FleetMember.Status.LEASED ? Math.max(FLOOR, snapshot.granted()) : FLOOR;
        }

        void leave() throws InterruptedException {
            stopLoad();
            running.set(false);
            member.stop();
            scheduler.shutdown();
        }

        /** Stops the heartbeats with no goodbye, as {@code kill -9} would, and drops its connections. */
        void kill() throws InterruptedException {
            running.set(false);
            scheduler.shutdownNow();
            scheduler.awaitTermination(1, TimeUnit.MINUTES);
            stopLoad();
            pool.close();
        }

        private void stopLoad() throws InterruptedException {
            loading.set(false);
            for (Thread thread : load) {
                thread.join();
            }
        }

        void close() throws InterruptedException {
            stopLoad();
            running.set(false);
            scheduler.shutdownNow();
            scheduler.awaitTermination(1, TimeUnit.MINUTES);
            pool.close();
            coordinatorPool.close();
        }
    }
}
