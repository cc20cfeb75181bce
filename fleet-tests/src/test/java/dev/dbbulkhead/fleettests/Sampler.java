package dev.dbbulkhead.fleettests;

import dev.dbbulkhead.testing.RestartablePostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Looks at the server every {@value #PERIOD_MILLIS} ms, as an operator would, on a connection of its own (not
 * through any instance's proxy), and keeps every {@link Sample} for the scenarios to judge. While the server is down
 * (restarting) there are no samples; the sampler connects again as soon as it is back.
 */
final class Sampler implements AutoCloseable {

    static final String APPLICATION_NAME = "fleet-sampler";
    private static final int PERIOD_MILLIS = 50;

    private final RestartablePostgres server;
    private final String table;
    private final Function<String, String> instanceOfMember;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition added = lock.newCondition();
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private long reconnects;
    private String lastFailure = "none";

    /**
     * @param table            the fleet table
     * @param instanceOfMember the instance a member id belongs to ({@code ?} for none the test knows)
     */
    Sampler(RestartablePostgres server, String table, Function<String, String> instanceOfMember) {
        this.server = server;
        this.table = table;
        this.instanceOfMember = instanceOfMember;
        this.thread = Thread.ofPlatform().daemon().name("fleet-sampler").start(this::sampleInALoop);
    }

    /** The samples taken from {@code from} to {@code to} ({@link System#nanoTime()}), in order. */
    List<Sample> between(long from, long to) {
        lock.lock();
        try {
            return samples.stream().filter(sample -> sample.at() - from >= 0 && sample.at() - to <= 0).toList();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The first sample taken at or after {@code notBefore} ({@link System#nanoTime()}) that shows {@code state};
     * waits for it, failing with the last sample seen if there is none within {@code limit}.
     */
    Sample await(String state, long notBefore, Duration limit, Predicate<Sample> shows) {
        return await(state, notBefore, limit, shows, () -> null);
    }

    /**
     * As {@link #await(String, long, Duration, Predicate)}, giving up at once when {@code hopeless} names a reason
     * the state can no longer come (an instance it needs has exited); it is asked at every new sample.
     */
    Sample await(String state, long notBefore, Duration limit, Predicate<Sample> shows,
                 Supplier<String> hopeless) {
        long deadline = System.nanoTime() + limit.toNanos();
        int next = 0;
        lock.lock();
        try {
            while (true) {
                for (; next < samples.size(); next++) {
                    Sample sample = samples.get(next);
                    if (sample.at() - notBefore >= 0 && shows.test(sample)) {
                        return sample;
                    }
                }
                String reason = hopeless.get();
                if (reason != null) {
                    throw new AssertionError("The server cannot show " + state + " any more: " + reason);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("The server did not show " + state + " within " + limit
                            + "; last sample: " + (samples.isEmpty() ? "none" : samples.getLast().describe(notBefore))
                            + "; sampler reconnects " + reconnects + ", last failure " + lastFailure);
                }
                added.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted while waiting for the server to show " + state, e);
        } finally {
            lock.unlock();
        }
    }

    /** The next sample, taken after now. */
    Sample next() {
        return await("a new sample", System.nanoTime(), Duration.ofSeconds(20), sample -> true);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join();
    }

    private void sampleInALoop() {
        long period = TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS);
        Connection connection = null;
        while (running) {
            long started = System.nanoTime();
            try {
                if (connection == null) {
                    connection = server.connect(APPLICATION_NAME);
                    connection.setAutoCommit(false);
                }
                Sample sample = sample(connection, started);
                lock.lock();
                try {
                    samples.add(sample);
                    added.signalAll();
                } finally {
                    lock.unlock();
                }
            } catch (SQLException down) {
                // The server is restarting, or this connection was ended: connect again at the next tick.
                close(connection);
                connection = null;
                lock.lock();
                try {
                    reconnects++;
                    lastFailure = down.getMessage();
                } finally {
                    lock.unlock();
                }
            }
            LockSupport.parkNanos(period - (System.nanoTime() - started));
        }
        close(connection);
    }

    /**
     * One sample, in one transaction: the leases, then the server's clock, then the sessions. In that order a sample
     * never shows a grant beside sessions the server listed before it: a grant is read only once committed, and the
     * renewal that fenced a member commits after the server stopped listing its sessions, so the sessions read after
     * it show them gone. (Read the other way round, the sessions could be read before such a renewal committed and
     * its grant after, and the sample would show a share given away while sessions it waited for were still open.)
     */
    private Sample sample(Connection connection, long at) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            boolean tableExists;
            try (ResultSet exists = statement.executeQuery("SELECT to_regclass('" + table + "') IS NOT NULL")) {
                exists.next();
                tableExists = exists.getBoolean(1);
            }
            List<Sample.Lease> leases = new ArrayList<>();
            if (tableExists) {
                try (ResultSet rows = statement.executeQuery(
                        "SELECT member_id, granted, target, lease_expires_at FROM " + table + " ORDER BY member_id")) {
                    while (rows.next()) {
                        String memberId = rows.getString(1);
                        leases.add(new Sample.Lease(memberId, instanceOfMember.apply(memberId), rows.getInt(2),
                                rows.getInt(3), rows.getObject(4, OffsetDateTime.class)));
                    }
                }
            }
            OffsetDateTime clock;
            try (ResultSet now = statement.executeQuery("SELECT clock_timestamp()")) {
                now.next();
                clock = now.getObject(1, OffsetDateTime.class);
            }
            Map<String, Integer> byName = new HashMap<>();
            try (ResultSet activity = statement.executeQuery("SELECT coalesce(application_name, ''), count(*)"
                    + " FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1")) {
                while (activity.next()) {
                    byName.put(activity.getString(1), activity.getInt(2));
                }
            }
            connection.commit();
            return new Sample(at, clock, Sample.Sessions.of(byName), List.copyOf(leases));
        }
    }

    private static void close(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException ignored) {
            // Broken already.
        }
    }
}
