package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.fleet.ConcurrencyCeiling;
import dev.dbbulkhead.fleet.FairShares;
import dev.dbbulkhead.fleet.FleetCoordinator;
import dev.dbbulkhead.fleet.FleetMember;
import dev.dbbulkhead.fleet.FleetSettings;
import dev.dbbulkhead.fleet.GateShares;
import dev.dbbulkhead.fleet.Lease;
import dev.dbbulkhead.fleet.LeaseRequest;
import dev.dbbulkhead.fleet.PostgresFleetCoordinator;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
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
import java.util.concurrent.ConcurrentHashMap;
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
 * never add up to more than the budget, and that no live instance's pool maximum or sum of B passes its share.
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
    /** A heartbeat may renew twice (once to learn a lower target, once to give the freed share back). */
    private static final int RENEWALS_PER_HEARTBEAT = 2;
    /** Two heartbeats after the change, and the one that may have been under way when it happened. */
    private static final int MOST_RENEWALS_TO_CONVERGE = 3 * RENEWALS_PER_HEARTBEAT;

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
        awaitFairSplit("two instances started", Map.of());
        startSampler();

        Map<String, Integer> before = renewals();
        join("c");
        awaitFairSplit("c joined", before);

        before = renewals();
        join("d");
        awaitFairSplit("d joined", before);

        before = renewals();
        Instance leaving = live.remove("d");
        leaving.leave();
        assertThat(grantsInTable()).as("a clean leave gives the share back at once").doesNotContainKey("d");
        awaitFairSplit("d left", before);

        Instance killed = live.remove("c");
        killed.kill();
        Await.until("c's lease expired on the server's clock", () -> !unexpiredLeases().contains("c"));
        before = renewals();
        awaitFairSplit("c's lease expired", before);

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

    /**
     * Waits until every live instance applies its fair share, the table grants exactly those shares, and then checks
     * that the slowest-beating member needed no more than two heartbeats (plus the one under way) since
     * {@code renewalsBefore}.
     */
    private void awaitFairSplit(String change, Map<String, Integer> renewalsBefore) {
        List<String> names = List.copyOf(live.keySet());
        int[] fair = FairShares.split(BUDGET, names.stream().map(name -> new FairShares.Claim(1, POOL_SIZE)).toList());
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
        if (renewalsBefore.isEmpty()) {
            return;
        }
        // Measured in the heartbeats of the slowest-beating member: on a busy machine the members' heartbeats
        // drift apart, and a fast one renews more often while it waits for a slow one to give back or grow.
        Map<String, Integer> after = renewals();
        Map<String, Integer> since = new TreeMap<>();
        renewalsBefore.forEach((name, count) -> {
            if (live.containsKey(name)) {
                since.put(name, after.get(name) - count);
            }
        });
        assertThat(since.values().stream().mapToInt(Integer::intValue).min().orElseThrow())
                .as("renewals to converge after %s, by member: %s", change, since)
                .isLessThanOrEqualTo(MOST_RENEWALS_TO_CONVERGE);
    }

    private Map<String, Integer> renewals() {
        Map<String, Integer> counts = new HashMap<>();
        live.forEach((name, instance) -> counts.put(name, instance.coordinator.renewals.get()));
        return counts;
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

    /** Counts a member's renewals, so that convergence is measured in heartbeats rather than in wall-clock time. */
    private static final class CountingCoordinator implements FleetCoordinator {

        final FleetCoordinator delegate;
        final AtomicInteger renewals = new AtomicInteger();

        CountingCoordinator(FleetCoordinator delegate) {
            this.delegate = delegate;
        }

        @Override
        public Lease renew(LeaseRequest request) {
            Lease lease = delegate.renew(request);
            renewals.incrementAndGet();
            return lease;
        }

        @Override
        public void leave(String memberId) {
            delegate.leave(memberId);
        }
    }

    /** One application instance: its pool, two workloads' gates, its coordinator, its heartbeat and some load. */
    private final class Instance {

        final String name;
        final HikariDataSource pool;
        final HikariDataSource coordinatorPool;
        final List<AdmissionGate> gates;
        final CountingCoordinator coordinator;
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
            this.coordinator = new CountingCoordinator(
                    new PostgresFleetCoordinator(coordinatorPool, PostgresFleetCoordinator.DEFAULT_TABLE, BUDGET));
            GateShares gateShares = new GateShares(gates.stream().map(ConcurrencyCeiling::new).toList());
            this.member = new FleetMember(coordinator,
                    new FleetSettings(name, 1, POOL_SIZE, FLOOR, HEARTBEAT, LEASE_TTL),
                    List.of(gateShares, new HikariPoolShare(pool)), scheduler);
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
