package dev.dbbulkhead.benchmarks.fleet;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.benchmarks.report.Charts;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
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
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The fleet demonstration: a PostgreSQL of its own with {@code max_connections = 40}, instances scaled 2 → 8 → 3
 * under a bounded closed-loop load on loopback, once with every instance keeping its configured pool of 10 and once
 * with the instances leasing shares of one budget through the database. Counts the connections the server refused
 * ("too many clients", SQLState 53300) and charts the goodput per instance.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar dev.dbbulkhead.benchmarks.fleet.FleetDemo [--out DIR]}
 */
public final class FleetDemo {

    private static final int MAX_CONNECTIONS = 40;
    private static final int POOL_SIZE = 10;
    /** Callers per instance: more than its pool, so that every instance wants all of its connections. */
    private static final int CALLERS = 14;
    private static final Duration WORK = Duration.ofMillis(5);
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final Duration LEASE_TTL = Duration.ofSeconds(2);
    private static final int[] SCALE = {2, 8, 3};
    private static final Duration PHASE = Duration.ofSeconds(6);
    private static final Duration SAMPLE = Duration.ofMillis(250);
    private static final String TOO_MANY_CLIENTS = "53300";

    private FleetDemo() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Path out = args.length == 2 && args[0].equals("--out") ? Path.of(args[1]) : Path.of("docs", "fleet");
        Files.createDirectories(out);
        try (EmbeddedPostgres server = EmbeddedPostgres.builder()
                .setServerConfig("max_connections", String.valueOf(MAX_CONNECTIONS))
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .start()) {
            String url = server.getJdbcUrl("postgres", "postgres");
            int usable = usableConnections(url);
            // Each coordinated instance holds one connection for its leases: the budget leaves room for those at the
            // peak of 8 instances, and one more for the sampler. A newcomer joins within the budget, as the starter's
            // instances do, so its floor needs no room of its own.
            int budget = usable - 8 - 1;
            Run without = run(url, false, budget);
            Run with = run(url, true, budget);
            report(out, usable, budget, without, with);
        }
        System.exit(0);
    }

    private static int usableConnections(String url) throws SQLException {
        try (Connection connection = java.sql.DriverManager.getConnection(url);
             Statement statement = connection.createStatement();
             ResultSet limits = statement.executeQuery("SELECT current_setting('max_connections')::int"
                     + " - current_setting('superuser_reserved_connections')::int"
                     + " - coalesce(current_setting('reserved_connections', true), '0')::int")) {
            limits.next();
            return limits.getInt(1);
        }
    }

    /** One run: a series of samples while the fleet is scaled, then the fleet stopped. */
    private static Run run(String url, boolean coordinated, int budget) throws Exception {
        List<Instance> instances = new ArrayList<>();
        List<double[]> goodputPerInstance = new ArrayList<>();
        List<double[]> serverConnections = new ArrayList<>();
        List<Phase> phases = new ArrayList<>();
        long start = System.nanoTime();
        try (Connection side = java.sql.DriverManager.getConnection(url)) {
            for (int target : SCALE) {
                while (instances.size() < target) {
                    Instance instance = new Instance(url, "i" + instances.size(), coordinated, budget);
                    instances.add(instance);
                    instance.start();
                }
                while (instances.size() > target) {
                    instances.removeLast().leave();
                }
                long phaseEnd = System.nanoTime() + PHASE.toNanos();
                long committedAtStart = committed(instances);
                long refusedAtStart = refusedByServer(instances);
                int peak = 0;
                long last = committedAtStart;
                long lastAt = System.nanoTime();
                while (System.nanoTime() < phaseEnd) {
                    LockSupport.parkNanos(SAMPLE.toNanos());
                    long now = System.nanoTime();
                    long done = committed(instances);
                    double seconds = (now - start) / 1e9;
                    goodputPerInstance.add(new double[] {seconds,
                            (done - last) / ((now - lastAt) / 1e9) / instances.size()});
                    int connections = clientConnections(side);
                    serverConnections.add(new double[] {seconds, connections});
                    peak = Math.max(peak, connections);
                    last = done;
                    lastAt = now;
                }
                phases.add(new Phase(target, (committed(instances) - committedAtStart) / PHASE.toSeconds()
                        / (double) target, refusedByServer(instances) - refusedAtStart, peak));
            }
        } finally {
            for (Instance instance : instances) {
                instance.leave();
            }
        }
        return new Run(coordinated, phases, goodputPerInstance, serverConnections);
    }

    private static long committed(List<Instance> instances) {
        return instances.stream().mapToLong(instance -> instance.committed.get()).sum()
                + Instance.COMMITTED_BY_LEFT.get();
    }

    private static long refusedByServer(List<Instance> instances) {
        return instances.stream().mapToLong(instance -> instance.refusedByServer.get()).sum()
                + Instance.REFUSED_BY_LEFT.get();
    }

    private static int clientConnections(Connection side) throws SQLException {
        try (Statement statement = side.createStatement();
             ResultSet count = statement.executeQuery(
                     "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'")) {
            count.next();
            return count.getInt(1);
        }
    }

    private record Phase(int instances, double goodputPerInstance, long refusedByServer, int peakConnections) {
    }

    private record Run(boolean coordinated, List<Phase> phases, List<double[]> goodputPerInstance,
                       List<double[]> serverConnections) {

        String name() {
            return coordinated ? "leased shares (coordination: postgres)" : "fixed pools (coordination: none)";
        }
    }

    private static void report(Path out, int usable, int budget, Run without, Run with) throws Exception {
        MarkdownTable table = new MarkdownTable("run", "instances", "goodput per instance (tx/s)",
                "connections refused by the server", "peak client connections");
        for (Run run : List.of(without, with)) {
            for (Phase phase : run.phases()) {
                table.row(run.name(), String.valueOf(phase.instances()),
                        String.format("%.0f", phase.goodputPerInstance()), String.valueOf(phase.refusedByServer()),
                        String.valueOf(phase.peakConnections()));
            }
        }
        String markdown = "max_connections = " + MAX_CONNECTIONS + " (" + usable + " usable), pool " + POOL_SIZE
                + " per instance, " + CALLERS + " callers per instance each running a " + WORK.toMillis()
                + " ms transaction in a closed loop; budget " + budget + ", heartbeat " + HEARTBEAT.toMillis()
                + " ms, lease ttl " + LEASE_TTL.toSeconds() + " s; " + PHASE.toSeconds() + " s per phase.\n\n"
                + table;
        Files.writeString(out.resolve("fleet-scaling.md"), markdown);
        Charts.lineChart(out.resolve("fleet-goodput-per-instance.png"), "Goodput per instance, 2 → 8 → 3 instances",
                "seconds", "committed transactions per second per instance", false,
                List.of(new Charts.Series(without.name(), without.goodputPerInstance()),
                        new Charts.Series(with.name(), with.goodputPerInstance())), List.of());
        Charts.lineChart(out.resolve("fleet-server-connections.png"), "Client connections on the server",
                "seconds", "connections", false,
                List.of(new Charts.Series(without.name(), without.serverConnections()),
                        new Charts.Series(with.name(), with.serverConnections())),
                List.of(new Charts.Reference("usable connections", usable)));
        System.out.println(markdown);
    }

    /** One application instance: a pool, one workload's gate, its callers and, when coordinated, its lease. */
    private static final class Instance {

        static final AtomicLong COMMITTED_BY_LEFT = new AtomicLong();
        static final AtomicLong REFUSED_BY_LEFT = new AtomicLong();

        final HikariDataSource pool;
        final HikariDataSource leasePool;
        final AdmissionGate gate = new AdmissionGate("orders",
                GateConfig.builder().maxConcurrent(POOL_SIZE).build());
        final FleetMember member;
        final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong committed = new AtomicLong();
        final AtomicLong refusedByServer = new AtomicLong();
        final List<Thread> callers = new ArrayList<>();

        Instance(String url, String name, boolean coordinated, int budget) {
            pool = new HikariDataSource(config(url, name, POOL_SIZE));
            if (coordinated) {
                leasePool = new HikariDataSource(config(url, name + "-lease", 1));
                member = new FleetMember(new PostgresFleetCoordinator(leasePool, "fleet_demo", budget),
                        new FleetSettings(name + "-" + System.nanoTime(), 1, POOL_SIZE, 1, HEARTBEAT, LEASE_TTL, null),
                        List.of(new GateShares(List.of(ConcurrencyCeiling.of(gate))), new HikariPoolShare(pool)),
                        scheduler, FleetLog.systemLogger());
            } else {
                leasePool = null;
                member = null;
            }
        }

        private static HikariConfig config(String url, String name, int size) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setPoolName(name);
            config.setMaximumPoolSize(size);
            // Connections open as the load asks for them, in both runs alike.
            config.setMinimumIdle(0);
            config.setConnectionTimeout(250);
            config.setInitializationFailTimeout(-1);
            return config;
        }

        void start() {
            if (member != null) {
                member.startWithinBudget(LEASE_TTL);
            }
            JdbcBulkhead bulkhead = new JdbcBulkhead(gate, pool);
            for (int i = 0; i < CALLERS; i++) {
                callers.add(Thread.ofVirtual().start(() -> {
                    while (running.get()) {
                        try {
                            bulkhead.transaction(connection -> {
                                try (Statement statement = connection.createStatement()) {
                                    statement.execute("SELECT pg_sleep(" + WORK.toMillis() / 1000.0 + ")");
                                }
                                return null;
                            });
                            committed.incrementAndGet();
                        } catch (BulkheadRejectedException rejected) {
                            LockSupport.parkNanos(WORK.toNanos());
                        } catch (SQLException failed) {
                            if (refusedByServer(failed)) {
                                refusedByServer.incrementAndGet();
                            }
                            LockSupport.parkNanos(WORK.toNanos());
                        }
                    }
                }));
            }
        }

        private static boolean refusedByServer(Throwable failure) {
            for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
                if (cause instanceof SQLException sql && TOO_MANY_CLIENTS.equals(sql.getSQLState())) {
                    return true;
                }
            }
            return false;
        }

        void leave() throws InterruptedException {
            if (!running.getAndSet(false)) {
                return;
            }
            for (Thread caller : callers) {
                caller.join();
            }
            COMMITTED_BY_LEFT.addAndGet(committed.get());
            REFUSED_BY_LEFT.addAndGet(refusedByServer.get());
            if (member != null) {
                member.stop();
            }
            scheduler.shutdownNow();
            pool.close();
            if (leasePool != null) {
                leasePool.close();
            }
        }
    }
}
