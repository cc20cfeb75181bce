package dev.dbbulkhead.benchmarks.signals;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;

import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.pathcost.ServerCpu;
import dev.dbbulkhead.benchmarks.report.Environment;
import dev.dbbulkhead.saturation.DatabaseSampler;
import dev.dbbulkhead.saturation.DatabaseSignals;
import dev.dbbulkhead.saturation.PostgresSignals;
import dev.dbbulkhead.saturation.SamplerSettings;
import dev.dbbulkhead.saturation.WaitClass;
import dev.dbbulkhead.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The cost of the database's sampler, one query a sample: on a server with {@value #IDLE} idle sessions,
 * {@value #SLEEPING} running a statement and {@value #LOCK_WAITERS} waiting for a row lock — the shape of a loaded
 * service's database — the sampler takes {@value #WARM_UP} samples to warm up and then {@value #SAMPLES} back to back.
 * Each sample's query time is its own ({@link DatabaseSignals#queryTime()}); the server's CPU is read from
 * {@code /proc} over the measured samples, when the server runs on this machine, and the sampler's own CPU from its
 * thread. {@code java -jar benchmarks.jar signals [--out DIR] [--quick]} writes signals.md.
 */
public final class SignalsCostRun {

    static final int IDLE = 60;
    static final int SLEEPING = 10;
    static final int LOCK_WAITERS = 5;
    static final int WARM_UP = 200;
    static final int SAMPLES = 2_000;
    private static final Duration DEFAULT_INTERVAL = SamplerSettings.DEFAULT_INTERVAL;

    private SignalsCostRun() {
    }

    /** Measures and writes signals.md into {@code out}; {@code quick} takes a tenth of the samples. */
    public static void run(boolean quick, Path out) throws Exception {
        BenchDatabase bench = BenchDatabase.create();
        TestDatabase database = bench.database();
        List<Connection> sessions = new ArrayList<>();
        ExecutorService busy = Executors.newCachedThreadPool();
        Instant began = Instant.now();
        try {
            for (int i = 0; i < IDLE; i++) {
                sessions.add(database.connect());
            }
            Connection holder = database.connect();
            sessions.add(holder);
            holder.setAutoCommit(false);
            execute(holder, "UPDATE account SET balance = balance + 1 WHERE id = 1");
            for (int i = 0; i < SLEEPING; i++) {
                Connection sleeper = database.connect();
                sessions.add(sleeper);
                busy.submit(() -> executeQuietly(sleeper, "SELECT pg_sleep(3600)"));
            }
            for (int i = 0; i < LOCK_WAITERS; i++) {
                Connection waiter = database.connect();
                sessions.add(waiter);
                busy.submit(() -> executeQuietly(waiter, "UPDATE account SET balance = balance + 1 WHERE id = 1"));
            }
            PGSimpleDataSource own = new PGSimpleDataSource();
            own.setURL(database.server().jdbcUrl());
            own.setUser(database.server().username());
            own.setPassword(database.server().password());
            int samples = quick ? SAMPLES / 10 : SAMPLES;
            int warmUps = quick ? WARM_UP / 10 : WARM_UP;
            try (DatabaseSampler sampler = new DatabaseSampler(own, new PostgresSignals(), SamplerSettings.defaults(),
                    System.getLogger(SignalsCostRun.class.getName()))) {
                awaitBusy(sampler);
                for (int i = 0; i < warmUps; i++) {
                    sample(sampler);
                }
                ServerCpu server = ServerCpu.of(database);
                ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                long serverBefore = server.nanos();
                long clientBefore = threads.getCurrentThreadCpuTime();
                long wallBefore = System.nanoTime();
                long[] queryNanos = new long[samples];
                DatabaseSignals last = sampler.latest().orElseThrow();
                for (int i = 0; i < samples; i++) {
                    last = sample(sampler);
                    queryNanos[i] = last.queryTime().toNanos();
                }
                long wall = System.nanoTime() - wallBefore;
                long client = threads.getCurrentThreadCpuTime() - clientBefore;
                long serverAfter = server.nanos();
                long serverNanos = server.measured() && serverAfter != ServerCpu.NOT_MEASURED
                        ? serverAfter - serverBefore : ServerCpu.NOT_MEASURED;
                Files.createDirectories(out);
                Files.writeString(out.resolve("signals.md"), report(began, warmUps, samples, queryNanos, wall,
                        client, serverNanos, last));
            }
        } finally {
            for (Connection session : sessions) {
                session.close();
            }
            busy.shutdownNow();
        }
    }

    private static DatabaseSignals sample(DatabaseSampler sampler) {
        if (!sampler.sampleOnce()) {
            throw new IllegalStateException("A sample failed; the sampler's log says why");
        }
        return sampler.latest().orElseThrow();
    }

    /** Samples until the sleeping and lock-waiting sessions are all seen, so that every sample measured sees them. */
    private static void awaitBusy(DatabaseSampler sampler) {
        while (true) {
            DatabaseSignals signals = sample(sampler);
            if (signals.active(WaitClass.OTHER) >= SLEEPING && signals.lockWaiters() >= LOCK_WAITERS) {
                return;
            }
            Thread.onSpinWait();
        }
    }

    private static String report(Instant began, int warmUps, int samples, long[] queryNanos, long wallNanos,
                                 long clientNanos, long serverNanos, DatabaseSignals last) {
        long[] sorted = queryNanos.clone();
        Arrays.sort(sorted);
        double serverMicros = serverNanos == ServerCpu.NOT_MEASURED ? Double.NaN : serverNanos / 1e3 / samples;
        double perInterval = serverMicros / (DEFAULT_INTERVAL.toNanos() / 1e3) * 100;
        return "# The database's signals: what the sampler costs\n\n"
                + "`\"$JAVA_HOME/bin/java\" -jar benchmarks/target/benchmarks.jar signals --out docs/benchmarks`"
                + " (`SignalsCostRun`, about ten seconds). The sampler of [the database's signals]"
                + "(../reference/metrics-and-observations.md#the-databases-signals) takes its samples back to back on"
                + " a server with sessions in each state a sample counts. The query time is each sample's own; the"
                + " server's CPU is read from `/proc` for all its processes over the measured samples, so it bounds"
                + " the sampler's from above (the sleeping and waiting sessions cost next to nothing).\n\n"
                + "The sampler of the database's signals, " + samples + " samples back to back on one session of its own,"
                + " after " + warmUps + " to warm up, from " + began + " to " + Instant.now() + ". The server: "
                + IDLE + " idle sessions, " + SLEEPING + " running `pg_sleep`, " + LOCK_WAITERS + " waiting for a row"
                + " lock held by one more, as the last sample saw them: " + last.activeSessions() + ", oldest lock"
                + " wait " + last.oldestLockWait() + ".\n\n" + Environment.describe(BenchDatabase.serverVersion())
                + "\n\n| per sample | value |\n|---|---|\n"
                + "| query time, median | " + number(percentile(sorted, 0.50) / 1e3, 1) + " µs |\n"
                + "| query time, p99 | " + number(percentile(sorted, 0.99) / 1e3, 1) + " µs |\n"
                + "| query time, most | " + number(sorted[sorted.length - 1] / 1e3, 1) + " µs |\n"
                + "| wall time, mean (query, reading the row, the sampler's own work) | "
                + number(wallNanos / 1e3 / samples, 1) + " µs |\n"
                + "| the server's CPU (all its processes, 10 ms ticks over the whole run) | "
                + (Double.isNaN(serverMicros) ? "not measured" : number(serverMicros, 1) + " µs") + " |\n"
                + "| the sampler thread's CPU | " + number(clientNanos / 1e3 / samples, 1) + " µs |\n"
                + "\nAt the default interval of " + DEFAULT_INTERVAL.toSeconds() + " s: "
                + (Double.isNaN(perInterval) ? "the server's CPU not measured" : number(perInterval, 3)
                        + " % of one server core") + ", one query a second.\n";
    }

    private static double percentile(long[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)];
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static Void executeQuietly(Connection connection, String sql) {
        try {
            execute(connection, sql);
        } catch (SQLException ended) {
            // The run closes the session under the statement when it ends; that is how it stops.
        }
        return null;
    }
}
