package dev.dbbulkhead.benchmarks.fleet;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadRejectedException;
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
import dev.dbbulkhead.saturation.DatabaseSampler;
import dev.dbbulkhead.saturation.FleetTotalPolicy;
import dev.dbbulkhead.saturation.PostgresSignals;
import dev.dbbulkhead.saturation.SamplerSettings;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One instance of {@link FleetSaturationRun}'s fleet, in a JVM of its own: a pool whose sessions carry the member's
 * name, one workload's gate in front of it, callers in a closed loop, the database's sampler and a fleet member whose
 * total follows it, wired as the starter wires them. Prints {@code ready} once it runs and runs until its standard input
 * closes, then leaves the fleet; prints {@code committed N}, what it committed so far, every 100 ms
 * meanwhile.
 *
 * <p>Arguments, {@code key=value}: url, user, password, table, tag, budget, pool, callers, work-ms, heartbeat-ms, ttl-ms,
 * interval-ms, cpus.
 */
public final class FleetSaturationMember {

    private FleetSaturationMember() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            int equals = arg.indexOf('=');
            options.put(arg.substring(0, equals), arg.substring(equals + 1));
        }
        int poolSize = Integer.parseInt(options.get("pool"));
        Duration heartbeat = Duration.ofMillis(Long.parseLong(options.get("heartbeat-ms")));
        Duration interval = Duration.ofMillis(Long.parseLong(options.get("interval-ms")));
        String tag = options.get("tag");
        String sessionName = FleetSettings.memberSessionName("fleet-saturation", tag);
        FleetSettings settings = new FleetSettings("member-" + tag, 1, poolSize, 1, heartbeat,
                Duration.ofMillis(Long.parseLong(options.get("ttl-ms"))), sessionName);
        ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
        try (HikariDataSource pool = pool(options, sessionName, poolSize);
             HikariDataSource coordination = pool(options, "fleet-saturation coordinator " + tag, 1);
             HikariDataSource signals = pool(options, "fleet-saturation signals " + tag, 1)) {
            DatabaseSampler sampler = new DatabaseSampler(signals, new PostgresSignals(), new SamplerSettings(interval,
                    interval.dividedBy(2), Integer.parseInt(options.get("cpus"))),
                    System.getLogger(DatabaseSampler.class.getName()));
            sampler.start(scheduler);
            AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(poolSize)
                    .maxQueued(1_000).queueWait(Duration.ofSeconds(30)).build());
            PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(coordination, options.get("table"),
                    Integer.parseInt(options.get("budget")), settings.renewalLockWait(), settings.renewalTimeout(),
                    FleetTotalPolicy.following(sampler), heartbeat);
            FleetMember member = new FleetMember(coordinator, settings,
                    List.of(new GateShares(List.of(ConcurrencyCeiling.of(gate))), new HikariPoolShare(pool)),
                    scheduler, FleetLog.systemLogger());
            // As the starter's membership joins: once the fleet has room for the floor, before any caller runs.
            member.startWithinBudget(settings.leaseTtl());
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong committed = new AtomicLong();
            List<Thread> callers = startCallers(new JdbcBulkhead(gate, pool), Integer.parseInt(options.get("callers")),
                    Long.parseLong(options.get("work-ms")), running, committed);
            System.out.println("ready");
            System.out.flush();
            // What it committed so far, for the parent to count each phase's goodput by.
            scheduler.scheduleAtFixedRate(() -> {
                System.out.println("committed " + committed.get());
                System.out.flush();
            }, 100, 100, TimeUnit.MILLISECONDS);
            awaitEndOfInput();
            running.set(false);
            for (Thread caller : callers) {
                caller.join();
            }
            member.stop();
            sampler.close();
            System.out.println("committed " + committed.get());
        } finally {
            scheduler.shutdownNow();
        }
        System.exit(0);
    }

    private static List<Thread> startCallers(JdbcBulkhead bulkhead, int callers, long workMillis,
                                             AtomicBoolean running, AtomicLong committed) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                while (running.get()) {
                    try {
                        bulkhead.transaction(connection -> {
                            try (Statement statement = connection.createStatement()) {
                                statement.execute("SELECT pg_sleep(" + workMillis / 1000.0 + ")");
                            }
                            return null;
                        });
                        committed.incrementAndGet();
                    } catch (BulkheadRejectedException | SQLException refused) {
                        LockSupport.parkNanos(Duration.ofMillis(workMillis).toNanos());
                    }
                }
            }));
        }
        return threads;
    }

    private static HikariDataSource pool(Map<String, String> options, String applicationName, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(options.get("url"));
        config.setUsername(options.get("user"));
        config.setPassword(options.get("password"));
        config.setPoolName(applicationName);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(1_000);
        config.setInitializationFailTimeout(-1);
        config.addDataSourceProperty("ApplicationName", applicationName);
        return new HikariDataSource(config);
    }

    private static void awaitEndOfInput() throws IOException {
        while (System.in.read() >= 0) {
            // Nothing is sent: the parent closes the stream to stop the member.
        }
    }
}
