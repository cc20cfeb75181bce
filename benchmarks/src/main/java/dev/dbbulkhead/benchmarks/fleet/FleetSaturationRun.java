package dev.dbbulkhead.benchmarks.fleet;

import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.process.ChildProcesses;
import dev.dbbulkhead.benchmarks.report.Charts;
import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import dev.dbbulkhead.fleet.FleetSettings;
import dev.dbbulkhead.saturation.SamplerSettings;
import dev.dbbulkhead.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A fleet of three instances, each a JVM of its own, whose total follows the database's signals, on one PostgreSQL:
 * the fleet runs alone, then another client's ungated CPU-bound queries saturate the server, then stop. Watched from the
 * server only, every {@value #SAMPLE_MILLIS} ms: the members' pool sessions (named as members name them), those of them
 * running a statement, and the newest total in the lease table.
 *
 * <p>Each member starts once those before it hold all they can, so that the last joins a budget held in full.
 * Targets: the members' sessions within the budget at every sample; after each lowering of the total, what they run
 * within it (or within one session a member, their floors, when that is more) within three heartbeats.
 */
public final class FleetSaturationRun {

    public static final String FILE = "fleet-saturation.md";
    private static final int MEMBERS = 3;
    private static final int BUDGET = 12;
    private static final int POOL = 8;
    private static final int CALLERS = 12;
    private static final int WORK_MILLIS = 10;
    private static final Duration HEARTBEAT = FleetSettings.DEFAULT_HEARTBEAT;
    private static final Duration LEASE_TTL = FleetSettings.DEFAULT_LEASE_TTL;
    private static final Duration INTERVAL = SamplerSettings.DEFAULT_INTERVAL;
    private static final int CPUS = Runtime.getRuntime().availableProcessors();
    private static final long SAMPLE_MILLIS = 50;
    private static final String MEMBER_SESSIONS = "fleet-saturation (db-bulkhead member %";
    /** A CPU-bound query of another client, well over a sample long. */
    private static final String SURGE_QUERY = "SELECT count(*) FROM generate_series(1, 2000000)";

    private FleetSaturationRun() {
    }

    /** One look from the server. */
    record Sample(double seconds, int sessions, int running, int total, int leased) {
    }

    /** Runs the three phases and writes {@value #FILE} into {@code out}; {@code quick} shortens each phase. */
    public static void run(boolean quick, Path out) throws Exception {
        TestDatabase database = BenchDatabase.create().database();
        String table = database.schema() + ".fleet_saturation";
        Duration alone = quick ? Duration.ofSeconds(8) : Duration.ofSeconds(15);
        Duration surge = quick ? Duration.ofSeconds(8) : Duration.ofSeconds(20);
        Duration after = quick ? Duration.ofSeconds(8) : Duration.ofSeconds(20);
        Instant began = Instant.now();
        List<Process> members = new ArrayList<>();
        List<AtomicLong> committedByMember = new ArrayList<>();
        List<Sample> samples = new ArrayList<>();
        double surgeAt;
        double surgeEndedAt;
        long[] commits = new long[3];
        AtomicBoolean watching = new AtomicBoolean(true);
        long origin = System.nanoTime();
        // Watched from before the first member starts, so that the joins are in the samples too.
        Thread watcher = watchInTheBackground(database, table, origin, watching, samples);
        try {
            for (int i = 0; i < MEMBERS; i++) {
                // Each joins once the members before it hold all they can: the last joins a budget held in full.
                awaitGrantedInAll(database, table, Math.min(BUDGET, i * POOL));
                AtomicLong committed = new AtomicLong();
                committedByMember.add(committed);
                members.add(startMember(database, table, "m" + i, committed));
            }
            long done = committed(committedByMember);
            Thread.sleep(alone);
            commits[0] = committed(committedByMember) - done;
            surgeAt = seconds(origin);
            AtomicBoolean surging = new AtomicBoolean(true);
            List<Thread> surgeThreads = startSurge(database, surging, 3 * CPUS);
            done = committed(committedByMember);
            Thread.sleep(surge);
            commits[1] = committed(committedByMember) - done;
            surging.set(false);
            for (Thread thread : surgeThreads) {
                thread.join();
            }
            surgeEndedAt = seconds(origin);
            done = committed(committedByMember);
            Thread.sleep(after);
            commits[2] = committed(committedByMember) - done;
        } finally {
            watching.set(false);
            watcher.join();
            for (Process member : members) {
                member.getOutputStream().close();
            }
            for (Process member : members) {
                if (!member.waitFor(30, TimeUnit.SECONDS)) {
                    member.destroyForcibly();
                }
            }
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve(FILE), report(began, samples, surgeAt, surgeEndedAt,
                new double[] {commits[0] / (double) alone.toSeconds(), commits[1] / (double) surge.toSeconds(),
                        commits[2] / (double) after.toSeconds()}, out));
    }

    private static Process startMember(TestDatabase database, String table, String tag, AtomicLong committed)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(ChildProcesses.java(), "-cp",
                System.getProperty("java.class.path"), FleetSaturationMember.class.getName(),
                "url=" + database.server().jdbcUrl(),
                "user=" + database.server().username(), "password=" + database.server().password(), "table=" + table,
                "tag=" + tag, "budget=" + BUDGET, "pool=" + POOL, "callers=" + CALLERS, "work-ms=" + WORK_MILLIS,
                "heartbeat-ms=" + HEARTBEAT.toMillis(), "ttl-ms=" + LEASE_TTL.toMillis(),
                "interval-ms=" + INTERVAL.toMillis(), "cpus=" + CPUS));
        Process process = new ProcessBuilder(command).start();
        CountDownLatch ready = new CountDownLatch(1);
        Thread.ofPlatform().daemon().start(() -> ChildProcesses.lines(process.getInputStream(), line -> {
            if (line.equals("ready")) {
                ready.countDown();
            } else if (line.startsWith("committed ")) {
                committed.set(Long.parseLong(line.substring("committed ".length())));
            } else {
                System.err.println("[" + tag + "] " + line);
            }
        }));
        Thread.ofPlatform().daemon().start(() -> ChildProcesses.lines(process.getErrorStream(),
                line -> System.err.println("[" + tag + "] " + line)));
        if (!ready.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("member " + tag + " did not start");
        }
        return process;
    }

    /** Another client's ungated sessions, each running the CPU-bound query in a loop until {@code surging} ends. */
    private static List<Thread> startSurge(TestDatabase database, AtomicBoolean surging, int sessions) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
                    while (surging.get()) {
                        statement.executeQuery(SURGE_QUERY).close();
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        return threads;
    }

    /** Samples the server every {@value #SAMPLE_MILLIS} ms into {@code samples} until {@code watching} turns false. */
    private static Thread watchInTheBackground(TestDatabase database, String table, long origin,
                                               AtomicBoolean watching, List<Sample> samples) {
        String sessions = "SELECT count(*) FILTER (WHERE application_name LIKE '" + MEMBER_SESSIONS + "'),"
                + " count(*) FILTER (WHERE application_name LIKE '" + MEMBER_SESSIONS + "' AND state = 'active'),";
        String query = sessions + " (SELECT fleet_total FROM " + table + " WHERE fleet_total_at IS NOT NULL"
                + " ORDER BY fleet_total_at DESC LIMIT 1),"
                + " (SELECT count(*) FROM " + table + " WHERE granted > 0) FROM pg_stat_activity";
        String before = sessions + " 0, 0 FROM pg_stat_activity";
        return Thread.ofPlatform().start(() -> {
            try (Connection observer = database.connect(); Statement statement = observer.createStatement()) {
                boolean tableMade = false;
                while (watching.get()) {
                    // The first member to renew makes the table; until then only the sessions can be counted.
                    tableMade = tableMade || exists(statement, table);
                    try (ResultSet row = statement.executeQuery(tableMade ? query : before)) {
                        row.next();
                        Sample sample = new Sample(seconds(origin), row.getInt(1), row.getInt(2), row.getInt(3),
                                row.getInt(4));
                        // Read by the run only once this thread has ended (join).
                        samples.add(sample);
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(SAMPLE_MILLIS));
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * Waits, at most a minute, until the table's grants add up to {@code granted}, each member granted its target; at
     * once for 0.
     */
    private static void awaitGrantedInAll(TestDatabase database, String table, int granted) throws SQLException {
        if (granted == 0) {
            return;
        }
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            while (true) {
                if (exists(statement, table)) {
                    try (ResultSet row = statement.executeQuery("SELECT coalesce(sum(granted), 0),"
                            + " count(*) FILTER (WHERE granted <> target) FROM " + table)) {
                        row.next();
                        if (row.getInt(1) == granted && row.getInt(2) == 0) {
                            return;
                        }
                    }
                }
                if (System.nanoTime() - end >= 0) {
                    throw new IllegalStateException("the members' grants did not reach " + granted);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(SAMPLE_MILLIS));
            }
        }
    }

    private static boolean exists(Statement statement, String table) throws SQLException {
        try (ResultSet row = statement.executeQuery("SELECT to_regclass('" + table + "') IS NOT NULL")) {
            row.next();
            return row.getBoolean(1);
        }
    }

    /** What the members committed so far, as they last said. */
    private static long committed(List<AtomicLong> committedByMember) {
        return committedByMember.stream().mapToLong(AtomicLong::get).sum();
    }

    private static double seconds(long origin) {
        return (System.nanoTime() - origin) / 1e9;
    }

    static String report(Instant began, List<Sample> samples, double surgeAt, double surgeEndedAt,
                         double[] commitsPerSecond, Path out) throws IOException {
        double heartbeat = HEARTBEAT.toNanos() / 1e9;
        int mostSessions = samples.stream().mapToInt(Sample::sessions).max().orElse(0);
        int joined = 0;
        while (joined < samples.size() && samples.get(joined).leased() < MEMBERS) {
            joined++;
        }
        int mostOnceJoined = samples.subList(joined, samples.size()).stream().mapToInt(Sample::sessions).max()
                .orElse(0);
        double joinedAt = joined < samples.size() ? samples.get(joined).seconds() : Double.NaN;
        double lowered = Double.NaN;
        double back = Double.NaN;
        double worstFollow = 0;
        int lowest = BUDGET;
        for (int i = 0; i < samples.size(); i++) {
            Sample sample = samples.get(i);
            if (sample.seconds() >= surgeAt && Double.isNaN(lowered) && sample.total() > 0 && sample.total() < BUDGET) {
                lowered = sample.seconds() - surgeAt;
            }
            if (sample.seconds() >= surgeAt && sample.seconds() < surgeEndedAt && sample.total() > 0) {
                lowest = Math.min(lowest, sample.total());
            }
            if (sample.seconds() >= surgeEndedAt && Double.isNaN(back) && sample.total() == BUDGET) {
                back = sample.seconds() - surgeEndedAt;
            }
            if (i > 0 && sample.total() > 0 && sample.total() < samples.get(i - 1).total()) {
                worstFollow = Math.max(worstFollow, followed(samples, i));
            }
        }
        boolean withinBudget = mostOnceJoined <= BUDGET;
        boolean followed = worstFollow <= 3 * heartbeat;
        MarkdownTable targets = new MarkdownTable("target", "measured", "met?");
        targets.row("the members' sessions within the budget (" + BUDGET + ") at every " + SAMPLE_MILLIS + " ms sample,"
                + " once every member had joined", String.format(Locale.ROOT, "most %d in %d samples from %.1f s on",
                mostOnceJoined, samples.size() - joined, joinedAt), withinBudget ? "yes" : "no");
        targets.row("the same, the joins included (a member joins once the fleet has room for its floor)",
                "most " + mostSessions + " in " + samples.size() + " samples",
                mostSessions <= BUDGET ? "yes" : "no");
        targets.row("the total lowered within three heartbeats of the surge's start",
                String.format(Locale.ROOT, "%.1f s (%.1f heartbeats)", lowered, lowered / heartbeat),
                lowered <= 3 * heartbeat ? "yes" : "no");
        targets.row("after each lowering of the total, what the members run within it within three heartbeats",
                String.format(Locale.ROOT, "at most %.2f s (%.1f heartbeats)", worstFollow, worstFollow / heartbeat),
                followed ? "yes" : "no");
        MarkdownTable phases = new MarkdownTable("phase", "the fleet's commits/s", "total");
        phases.row("fleet alone", String.format(Locale.ROOT, "%.0f", commitsPerSecond[0]), String.valueOf(BUDGET));
        phases.row("another client's CPU-bound queries", String.format(Locale.ROOT, "%.0f", commitsPerSecond[1]),
                String.format(Locale.ROOT, "lowered %.1f s after the surge began, down to %d", lowered, lowest));
        phases.row("after the surge", String.format(Locale.ROOT, "%.0f", commitsPerSecond[2]),
                String.format(Locale.ROOT, "back at the budget %.1f s after the surge ended", back));
        List<double[]> sessions = new ArrayList<>();
        List<double[]> running = new ArrayList<>();
        List<double[]> totals = new ArrayList<>();
        for (Sample sample : samples) {
            sessions.add(new double[] {sample.seconds(), sample.sessions()});
            running.add(new double[] {sample.seconds(), sample.running()});
            totals.add(new double[] {sample.seconds(), sample.total()});
        }
        Charts.lineChart(out.resolve("fleet-saturation.png"), "Three instances, one database, a surge from outside",
                "seconds", "sessions", false, List.of(new Charts.Series("the fleet's total", totals),
                        new Charts.Series("members' sessions", sessions),
                        new Charts.Series("members' sessions running", running)),
                List.of(new Charts.Reference("budget", BUDGET)));
        return "# A fleet whose total follows the database\n\n"
                + String.format(Locale.ROOT, "%d instances, each a JVM of its own with a pool of %d and %d callers in a"
                        + " closed loop (a %d ms statement each), budget %d, `total: database`, heartbeat %s, lease ttl"
                        + " %s, signals every %s, %d server CPUs. The surge: %d sessions of another client running a"
                        + " CPU-bound query, outside every gate, from %.1f s to %.1f s. Watched from the server every"
                        + " %d ms, from before the first member starts. Each member starts once those before it hold"
                        + " all they can, so that the third joins a budget held in full; a member joins once the others"
                        + " have given back room for its floor of one session"
                        + " (`FleetMember.startWithinBudget`, as the starter joins), and opens no connection before;"
                        + " below a total of one session a member, the members run on their floors, within the"
                        + " budget. From %s, %d samples.%n%n",
                        MEMBERS, POOL, CALLERS, WORK_MILLIS, BUDGET, HEARTBEAT, LEASE_TTL, INTERVAL, CPUS, 3 * CPUS,
                        surgeAt, surgeEndedAt, SAMPLE_MILLIS, began, samples.size())
                + targets + "\n" + phases + "\n![the fleet's total and its sessions](fleet-saturation.png)\n\n"
                + "Run: `java -jar benchmarks/target/benchmarks.jar fleet-saturation` (about a minute).\n";
    }

    /**
     * Seconds from sample {@code lowering}, where the total fell, until what the members ran stayed within it (or within
     * their floors) up to the next rise of the total, or the end; never within it, the time until that rise.
     */
    private static double followed(List<Sample> samples, int lowering) {
        int total = samples.get(lowering).total();
        int bound = Math.max(total, MEMBERS);
        int until = lowering + 1;
        while (until < samples.size() && samples.get(until).total() <= total) {
            until++;
        }
        int from = until;
        for (int j = until - 1; j >= lowering && samples.get(j).running() <= bound; j--) {
            from = j;
        }
        if (from == until) {
            // Still above it when the total rose again (judged by how long that was), or at the end: never followed.
            return until < samples.size() ? samples.get(until).seconds() - samples.get(lowering).seconds()
                    : Double.POSITIVE_INFINITY;
        }
        return samples.get(from).seconds() - samples.get(lowering).seconds();
    }
}
