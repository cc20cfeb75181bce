package dev.dbbulkhead.benchmarks.fleet;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.pathcost.ServerCpu;
import dev.dbbulkhead.benchmarks.report.Environment;
import dev.dbbulkhead.fleet.FleetCoordinator;
import dev.dbbulkhead.fleet.FleetLog;
import dev.dbbulkhead.fleet.FleetMember;
import dev.dbbulkhead.fleet.FleetNews;
import dev.dbbulkhead.fleet.FleetSettings;
import dev.dbbulkhead.fleet.FleetTotals;
import dev.dbbulkhead.fleet.Lease;
import dev.dbbulkhead.fleet.LeaseRequest;
import dev.dbbulkhead.fleet.PostgresFleetCoordinator;
import dev.dbbulkhead.fleet.ShareTarget;
import dev.dbbulkhead.testing.TestDatabase;
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
import java.util.OptionalInt;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * What fleet coordination costs the database it protects, at the fleet sizes users autoscale to: 10, 50 and 100
 * members, each with a session of its own (a pool of one connection, as the starter gives each instance), renewing at
 * the default heartbeat (1 s) on one table of leases. Per size: renewals per second, the server's CPU for them, the
 * sessions waiting for the table's lock (sampled every 50 ms on a connection of its own), and the heartbeats from one
 * more member's join to a fair split (every member granted its equal share of the budget). Members are threads of
 * this JVM; the server sees one session per member, as it would from separate instances. Then, at the largest size,
 * the same fleet with a total that follows the database ({@code fleet.total: database}): renewals and the server's
 * CPU while the total holds, and while it moves every heartbeat, a quarter down and back up, as it does while the
 * database turns saturated and healthy again.
 * {@code java -jar benchmarks.jar fleet-scale [--out DIR] [--quick]} writes fleet-scale.md.
 */
public final class FleetScaleRun {

    static final int[] SIZES = {10, 50, 100};
    private static final int BUDGET = 200;
    private static final int DEMAND = 10;
    private static final Duration HEARTBEAT = FleetSettings.DEFAULT_HEARTBEAT;
    private static final Duration LEASE_TTL = FleetSettings.DEFAULT_LEASE_TTL;
    private static final Duration SAMPLE = Duration.ofMillis(50);
    /** The steady window of the renewals, in measuring windows: 40 s, at least one renewal of each of 50 members. */
    private static final int STEADY_WINDOWS = 4;
    /** The split is judged fair within this many heartbeats, or reported as not reached. */
    private static final int MOST_HEARTBEATS_TO_SPLIT = 20;

    private FleetScaleRun() {
    }

    /**
     * One fleet size's measurements; the server's CPU in % of one core, net of the same window with the observer
     * alone.
     *
     * @param serverCpuPercent     the renewals'
     * @param grossCpuPercent      the window's, observer and server's own work included
     * @param roundTripCpuPercent  one {@code SELECT 1} per member per heartbeat on the members' sessions: the least
     *                             any renewal per heartbeat costs this server
     */
    record Result(int members, double renewalsPerSecond, double serverCpuPercent, double grossCpuPercent,
                  double roundTripCpuPercent, double meanLockWaiters, int mostLockWaiters, double heartbeatsToSplit) {
    }

    /**
     * A fleet that follows the database, at one size: while its total holds, and while it moves every heartbeat.
     *
     * @param heldCpuPercent   the server's CPU of the renewals while the total holds, % of one core, net as above
     * @param movingCpuPercent the same while it moves every heartbeat
     * @param leastAllowed     the fewest connections the members allowed themselves together, sampled every
     *                         {@link #SAMPLE} while the total moves
     * @param mostAllowed      the most, likewise
     */
    record MovingTotal(int members, double heldRenewalsPerSecond, double heldCpuPercent,
                       double movingRenewalsPerSecond, double movingCpuPercent, int leastAllowed, int mostAllowed) {
    }

    /** What the server did over one observed window. */
    private record Window(double cpuPercent, long samples, long lockWaiters, int mostLockWaiters) {

        double meanLockWaiters() {
            return samples == 0 ? 0 : (double) lockWaiters / samples;
        }
    }

    /** Measures each size and writes fleet-scale.md into {@code out}; {@code quick} measures 2 s instead of 10. */
    public static void run(boolean quick, Path out) throws Exception {
        TestDatabase database = BenchDatabase.create().database();
        Duration window = quick ? Duration.ofSeconds(2) : Duration.ofSeconds(10);
        Instant began = Instant.now();
        List<Result> results = new ArrayList<>();
        for (int size : quick ? new int[] {SIZES[0]} : SIZES) {
            results.add(measure(database, size, window));
        }
        MovingTotal moving = measureMovingTotal(database, quick ? SIZES[0] : SIZES[SIZES.length - 1], window);
        Files.createDirectories(out);
        Files.writeString(out.resolve("fleet-scale.md"), report(began, window, results, moving));
    }

    private static Result measure(TestDatabase database, int size, Duration window) throws Exception {
        String table = database.schema() + ".fleet_scale_" + size;
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(4, task -> {
            Thread thread = new Thread(task, "fleet-scale");
            thread.setDaemon(true);
            return thread;
        });
        LongAdder renewals = new LongAdder();
        List<Member> members = new ArrayList<>();
        try (Connection observer = database.connect()) {
            ServerCpu server = ServerCpu.of(database);
            long observerPid = backendPid(observer);
            // As long as the renewals' window: the server's own background work comes and goes over tens of seconds.
            Window alone = observe(observer, observerPid, server, window.multipliedBy(STEADY_WINDOWS));
            Window roundTrips = roundTrips(database, observer, observerPid, server, size, window, scheduler);
            for (int i = 0; i < size - 1; i++) {
                members.add(Member.start(database, table, "m" + i, scheduler, renewals, null));
            }
            awaitFairSplit(members, size - 1);
            // Steady: a settled member renews every heartbeat, or every few in a large fleet.
            long renewalsBefore = renewals.sum();
            long start = System.nanoTime();
            Window renewing = observe(observer, observerPid, server, window.multipliedBy(STEADY_WINDOWS));
            double renewalsPerSecond = (renewals.sum() - renewalsBefore) / ((System.nanoTime() - start) / 1e9);
            // One more joins: heartbeats until every member holds its equal share again.
            long joined = System.nanoTime();
            members.add(Member.start(database, table, "joiner", scheduler, renewals, null));
            double heartbeats = awaitFairSplit(members, size)
                    ? (System.nanoTime() - joined) / (double) HEARTBEAT.toNanos() : Double.NaN;
            return new Result(size, renewalsPerSecond, renewing.cpuPercent() - alone.cpuPercent(),
                    renewing.cpuPercent(), roundTrips.cpuPercent() - alone.cpuPercent(), renewing.meanLockWaiters(),
                    renewing.mostLockWaiters(), heartbeats);
        } finally {
            for (Member member : members) {
                member.stop();
            }
            scheduler.shutdownNow();
        }
    }

    /**
     * {@code size} members whose coordinators take the fleet's total from a source that holds it, then moves it every
     * heartbeat between the budget and three quarters of it (the policy's cut and raise are a quarter): each window as
     * long as the steady one above.
     */
    private static MovingTotal measureMovingTotal(TestDatabase database, int size, Duration window) throws Exception {
        String table = database.schema() + ".fleet_scale_moving_" + size;
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(4, task -> {
            Thread thread = new Thread(task, "fleet-scale-moving");
            thread.setDaemon(true);
            return thread;
        });
        AtomicBoolean moving = new AtomicBoolean();
        FleetTotals totals = fleet -> moving.get()
                ? OptionalInt.of(fleet.total() == fleet.budget() ? fleet.budget() * 3 / 4 : fleet.budget())
                : OptionalInt.empty();
        LongAdder renewals = new LongAdder();
        List<Member> members = new ArrayList<>();
        try (Connection observer = database.connect()) {
            ServerCpu server = ServerCpu.of(database);
            long observerPid = backendPid(observer);
            Window alone = observe(observer, observerPid, server, window.multipliedBy(STEADY_WINDOWS));
            for (int i = 0; i < size; i++) {
                members.add(Member.start(database, table, "m" + i, scheduler, renewals, totals));
            }
            awaitFairSplit(members, size);
            long before = renewals.sum();
            long start = System.nanoTime();
            Window held = observe(observer, observerPid, server, window.multipliedBy(STEADY_WINDOWS));
            double heldPerSecond = (renewals.sum() - before) / ((System.nanoTime() - start) / 1e9);
            moving.set(true);
            before = renewals.sum();
            start = System.nanoTime();
            AtomicInteger leastAllowed = new AtomicInteger(Integer.MAX_VALUE);
            AtomicInteger mostAllowed = new AtomicInteger();
            ScheduledFuture<?> allowed = scheduler.scheduleAtFixedRate(() -> {
                int together = members.stream().mapToInt(member -> member.fleetMember().connectionsAllowed()).sum();
                leastAllowed.accumulateAndGet(together, Math::min);
                mostAllowed.accumulateAndGet(together, Math::max);
            }, 0, SAMPLE.toNanos(), TimeUnit.NANOSECONDS);
            Window moved = observe(observer, observerPid, server, window.multipliedBy(STEADY_WINDOWS));
            allowed.cancel(false);
            double movingPerSecond = (renewals.sum() - before) / ((System.nanoTime() - start) / 1e9);
            return new MovingTotal(size, heldPerSecond, held.cpuPercent() - alone.cpuPercent(), movingPerSecond,
                    moved.cpuPercent() - alone.cpuPercent(), leastAllowed.get(), mostAllowed.get());
        } finally {
            for (Member member : members) {
                member.stop();
            }
            scheduler.shutdownNow();
        }
    }

    /**
     * The server's CPU and lock waiters over {@code window}, sampling the waiters every {@link #SAMPLE}; the
     * observer's own backend is left out of the CPU, as its queries cost more the more sessions it lists.
     */
    private static Window observe(Connection observer, long observerPid, ServerCpu server, Duration window)
            throws SQLException {
        long before = server.nanosExcept(observerPid);
        long start = System.nanoTime();
        long samples = 0;
        long waiters = 0;
        int most = 0;
        while (System.nanoTime() - start < window.toNanos()) {
            int waiting = lockWaiters(observer);
            samples++;
            waiters += waiting;
            most = Math.max(most, waiting);
            LockSupport.parkNanos(SAMPLE.toNanos());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long after = server.nanosExcept(observerPid);
        double cpuPercent = before == ServerCpu.NOT_MEASURED || after == ServerCpu.NOT_MEASURED
                ? Double.NaN : (after - before) / 1e9 / seconds * 100;
        return new Window(cpuPercent, samples, waiters, most);
    }

    /**
     * {@code size} sessions, each sending {@code SELECT 1} once a heartbeat, spread over it: what the least renewal
     * per heartbeat, one round trip that does nothing, costs this server.
     */
    private static Window roundTrips(TestDatabase database, Connection observer, long observerPid, ServerCpu server,
                                     int size, Duration window, ScheduledThreadPoolExecutor scheduler)
            throws SQLException {
        List<Connection> sessions = new ArrayList<>();
        List<java.util.concurrent.ScheduledFuture<?>> beats = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                Connection session = database.connect();
                sessions.add(session);
                long offset = HEARTBEAT.toNanos() * i / size;
                beats.add(scheduler.scheduleAtFixedRate(() -> selectOne(session), offset, HEARTBEAT.toNanos(),
                        TimeUnit.NANOSECONDS));
            }
            return observe(observer, observerPid, server, window);
        } finally {
            beats.forEach(beat -> beat.cancel(false));
            for (Connection session : sessions) {
                session.close();
            }
        }
    }

    private static void selectOne(Connection session) {
        try (Statement statement = session.createStatement();
             ResultSet one = statement.executeQuery("SELECT 1")) {
            one.next();
        } catch (SQLException e) {
            throw new IllegalStateException("a round trip of the floor failed", e);
        }
    }

    /**
     * Waits until each of {@code size} members sees all of them and is granted its fair target (the budget split
     * equally, capped at the demand); false if not within the bound.
     */
    private static boolean awaitFairSplit(List<Member> members, int size) {
        long deadline = System.nanoTime() + HEARTBEAT.multipliedBy(MOST_HEARTBEATS_TO_SPLIT).toNanos();
        while (System.nanoTime() - deadline < 0) {
            boolean split = true;
            for (Member member : members) {
                FleetMember.Snapshot snapshot = member.fleetMember.snapshot();
                if (snapshot.members().size() != size || snapshot.granted() != snapshot.target()) {
                    split = false;
                    break;
                }
            }
            if (split) {
                return true;
            }
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
        return false;
    }

    private static long backendPid(Connection session) throws SQLException {
        try (Statement statement = session.createStatement();
             ResultSet pid = statement.executeQuery("SELECT pg_backend_pid()")) {
            pid.next();
            return pid.getLong(1);
        }
    }

    private static int lockWaiters(Connection observer) throws SQLException {
        try (Statement statement = observer.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE wait_event_type = 'Lock' AND datname = current_database()")) {
            row.next();
            return row.getInt(1);
        }
    }

    /** One simulated instance: its own session for the coordinator, a target that takes any share. */
    private record Member(FleetMember fleetMember, HikariDataSource session) {

        /** @param totals where the fleet's total comes from; null to split the budget */
        static Member start(TestDatabase database, String table, String name, ScheduledThreadPoolExecutor scheduler,
                            LongAdder renewals, @Nullable FleetTotals totals) {
            HikariConfig config = database.poolConfig(1, "fleet-scale-" + name);
            HikariDataSource session = new HikariDataSource(config);
            FleetCoordinator postgres = totals == null ? new PostgresFleetCoordinator(session, table, BUDGET)
                    : new PostgresFleetCoordinator(session, table, BUDGET,
                            PostgresFleetCoordinator.DEFAULT_RENEWAL_LOCK_WAIT,
                            PostgresFleetCoordinator.DEFAULT_RENEWAL_TIMEOUT, totals, HEARTBEAT);
            FleetCoordinator counted = new FleetCoordinator() {
                @Override
                public Lease renew(LeaseRequest request) {
                    Lease lease = postgres.renew(request);
                    renewals.increment();
                    return lease;
                }

                @Override
                public void leave(String memberId) {
                    postgres.leave(memberId);
                }

                @Override
                public FleetNews newsFor(String memberId) {
                    return postgres.newsFor(memberId);
                }

                @Override
                public boolean announcesChanges() {
                    return postgres.announcesChanges();
                }
            };
            ShareTarget anyShare = connections -> true;
            FleetMember member = new FleetMember(counted, new FleetSettings(name + "-" + System.nanoTime(), 1, DEMAND,
                    1, HEARTBEAT, LEASE_TTL, null), List.of(anyShare), scheduler, FleetLog.systemLogger());
            member.start();
            return new Member(member, session);
        }

        void stop() {
            try {
                fleetMember.stop();
            } finally {
                session.close();
            }
        }
    }

    private static String report(Instant began, Duration window, List<Result> results, MovingTotal moving) {
        StringBuilder text = new StringBuilder("# Fleet coordination at scale: what renewals cost the database\n\n")
                .append("`\"$JAVA_HOME/bin/java\" -jar benchmarks/target/benchmarks.jar fleet-scale")
                .append(" --out docs/benchmarks`")
                .append(" (`FleetScaleRun`). Per fleet size, members (threads of one JVM, each with a session of its")
                .append(" own) keep their leases at the default heartbeat of ").append(HEARTBEAT.toSeconds())
                .append(" s and ttl of ").append(LEASE_TTL.toSeconds()).append(" s on one table of leases, budget ")
                .append(BUDGET).append(", demand ").append(DEMAND).append(" each: in a fleet of more than five,")
                .append(" a member whose share is settled renews every `members` heartbeats, with a ttl")
                .append(" as many times longer, and at its next heartbeat once a change of the fleet is announced.")
                .append(" Steady window ").append(window.multipliedBy(STEADY_WINDOWS).toSeconds())
                .append(" s after the split was fair;")
                .append(" the server's CPU is all its processes' (from `/proc`, 10 ms ticks) over the window;")
                .append(" the renewals' is that less a window as long with only the observer sampling (*gross* keeps")
                .append(" it); the observer's own backend is left out of both, as its queries over `pg_stat_activity`")
                .append(" cost more the more sessions there are. *One round trip* is the same number of sessions each sending `SELECT 1` once a")
                .append(" heartbeat for a window of ").append(window.toSeconds()).append(" s, less the same: a")
                .append(" bare round trip to a session kept warm by being woken every heartbeat, which a renewal after")
                .append(" many idle seconds costs more than. Lock")
                .append(" waiters are the sessions waiting for a lock, sampled every ").append(SAMPLE.toMillis())
                .append(" ms. Then one more member joins: the heartbeats")
                .append(" until every member holds its equal share. From ").append(began).append(" to ")
                .append(Instant.now()).append(".\n\n").append(Environment.describe(BenchDatabase.serverVersion()))
                .append("\n\n| members | renewals/s | server CPU of the renewals, % of one core | gross |")
                .append(" one round trip per member per heartbeat | lock waiters, mean | lock waiters, most |")
                .append(" heartbeats to a fair split after a join |\n|---|---|---|---|---|---|---|---|\n");
        for (Result result : results) {
            text.append("| ").append(result.members()).append(" | ").append(number(result.renewalsPerSecond(), 1))
                    .append(" | ").append(percent(result.serverCpuPercent())).append(" | ")
                    .append(percent(result.grossCpuPercent())).append(" | ")
                    .append(percent(result.roundTripCpuPercent()))
                    .append(" | ").append(number(result.meanLockWaiters(), 2)).append(" | ")
                    .append(result.mostLockWaiters()).append(" | ")
                    .append(Double.isNaN(result.heartbeatsToSplit()) ? "not within " + MOST_HEARTBEATS_TO_SPLIT
                            : number(result.heartbeatsToSplit(), 1)).append(" |\n");
        }
        text.append("\n## A total that follows the database\n\n").append(moving.members())
                .append(" members whose total comes from the database's signals (`fleet.total: database`), on a table")
                .append(" of their own: ").append(window.multipliedBy(STEADY_WINDOWS).toSeconds())
                .append(" s while the total holds, then as long while it moves every heartbeat between the budget")
                .append(" and three quarters of it, as it does while the database turns saturated and healthy again")
                .append(" (each move is announced with its value: a resting member follows it at its next heartbeat")
                .append(" within what its lease grants, and renews only to grow past that). Net of a window with only")
                .append(" the observer, as above. While the total moves, the connections the members allowed")
                .append(" themselves together, sampled every ").append(SAMPLE.toMillis()).append(" ms, ranged from ")
                .append(moving.leastAllowed()).append(" to ").append(moving.mostAllowed()).append(" (the totals: ")
                .append(BUDGET * 3 / 4).append(" and ").append(BUDGET).append(").\n\n")
                .append("| members | total | renewals/s | server CPU of the renewals, % of one core |\n")
                .append("|---|---|---|---|\n")
                .append("| ").append(moving.members()).append(" | holds | ")
                .append(number(moving.heldRenewalsPerSecond(), 1)).append(" | ")
                .append(percent(moving.heldCpuPercent())).append(" |\n")
                .append("| ").append(moving.members()).append(" | moves every heartbeat | ")
                .append(number(moving.movingRenewalsPerSecond(), 1)).append(" | ")
                .append(percent(moving.movingCpuPercent())).append(" |\n");
        return text.toString();
    }

    private static String percent(double value) {
        return Double.isNaN(value) ? "not measured" : number(value, 2);
    }
}
