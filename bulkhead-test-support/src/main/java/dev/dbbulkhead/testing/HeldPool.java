package dev.dbbulkhead.testing;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Every connection of a HikariCP pool, borrowed by a plain thread that passes no gate (a batch job, another library)
 * and held until {@link #close()}: what leaves an admitted operation nothing but the pool's wait. Tells afterwards
 * whether the pool is whole: its counts, the sessions it has open on the server, each held connection still usable,
 * and every connection borrowable again once they are given back.
 */
public final class HeldPool implements AutoCloseable {

    /** How HikariCP's timeout reports the wait it gave up after. */
    private static final Pattern TIMED_OUT_AFTER = Pattern.compile("request timed out after (\\d+)ms");
    /** How db-bulkhead names the bound an operation's deadline set on that wait. */
    private static final Pattern BOUNDED_TO = Pattern.compile("the wait was bounded to (\\d+) ms");

    private final HikariDataSource pool;
    private final List<Connection> held;
    /** The pool's state once every connection was held. */
    private final PoolState whenHeld;

    private HeldPool(HikariDataSource pool, List<Connection> held) throws SQLException {
        this.pool = pool;
        this.held = held;
        this.whenHeld = state();
        int size = pool.getMaximumPoolSize();
        expect("the pool with every connection held (give it an ApplicationName of its own)",
                new PoolState(size, size, 0, 0, size), whenHeld);
    }

    /**
     * Borrows all {@code maximumPoolSize} connections of the HikariCP pool {@code dataSource} is or wraps, on a plain
     * thread of its own, outside every gate, and returns once they are all held. Give the pool an
     * {@code ApplicationName} of its own: {@link #state()} counts the server's sessions by it.
     *
     * @throws AssertionError when the pool does not then hold every connection, each a session on the server
     */
    public static HeldPool holdEvery(DataSource dataSource) throws Exception {
        HikariDataSource pool = dataSource.unwrap(HikariDataSource.class);
        ExecutorService plainThread = Executors.newSingleThreadExecutor();
        try {
            return new HeldPool(pool, plainThread.submit(() -> {
                List<Connection> borrowed = new ArrayList<>();
                for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
                    borrowed.add(pool.getConnection());
                }
                return borrowed;
            }).get());
        } catch (ExecutionException failed) {
            throw new IllegalStateException("Could not hold every connection of " + pool, failed.getCause());
        } finally {
            plainThread.shutdown();
        }
    }

    /**
     * The pool as HikariCP and the server see it now, read on the first held connection.
     *
     * @param total          connections the pool holds
     * @param active         of them, borrowed
     * @param idle           of them, idle
     * @param waiting        threads waiting for one
     * @param serverSessions the sessions open on the server under the pool's application name
     */
    public record PoolState(int total, int active, int idle, int waiting, int serverSessions) {
    }

    /** The pool's counts and its sessions on the server. */
    public PoolState state() throws SQLException {
        HikariPoolMXBean counts = Objects.requireNonNull(pool.getHikariPoolMXBean(), "a started pool");
        return new PoolState(counts.getTotalConnections(), counts.getActiveConnections(),
                counts.getIdleConnections(), counts.getThreadsAwaitingConnection(), serverSessions(held.getFirst()));
    }

    /** Runs {@code SELECT 1} on each held connection; returns how many answered 1. */
    public int usableConnections() throws SQLException {
        int usable = 0;
        for (Connection connection : held) {
            try (Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT 1")) {
                usable += rs.next() && rs.getInt(1) == 1 ? 1 : 0;
            }
        }
        return usable;
    }

    /**
     * Gives every held connection back, then borrows them all again at once on this thread: the state read while they
     * are, before they are given back again.
     */
    public PoolState releaseAndBorrowEvery() throws SQLException {
        close();
        List<Connection> again = new ArrayList<>();
        try {
            for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
                again.add(pool.getConnection());
            }
            HikariPoolMXBean counts = Objects.requireNonNull(pool.getHikariPoolMXBean(), "a started pool");
            return new PoolState(counts.getTotalConnections(), counts.getActiveConnections(),
                    counts.getIdleConnections(), counts.getThreadsAwaitingConnection(), serverSessions(again.getFirst()));
        } finally {
            for (Connection connection : again) {
                connection.close();
            }
        }
    }

    /**
     * Checks that the pool came through what the test did while every connection was held, then gives them back: the
     * same counts and server sessions as when they were first held (no connection lost, none opened, nobody left
     * waiting), each held connection usable, and, given back, every connection borrowable again at once.
     *
     * @throws AssertionError naming what differs; the connections are given back either way
     */
    public void assertWholeThenRelease() throws SQLException {
        try {
            expect("the pool's state", whenHeld, state());
            expect("held connections answering SELECT 1", held.size(), usableConnections());
        } finally {
            close();
        }
        int size = pool.getMaximumPoolSize();
        expect("the pool with every connection borrowed again", new PoolState(size, size, 0, 0, size),
                releaseAndBorrowEvery());
    }

    /**
     * Checks that {@code failure} comes from a pool wait an operation's deadline ended: db-bulkhead's bound in its
     * causes, positive and at most {@code budgetMillis}, with HikariCP's own timeout under it reporting a wait shorter
     * than the pool's {@code connectionTimeoutMillis}, which the deadline did not let it wait.
     *
     * @throws AssertionError naming what differs
     */
    public static void assertWaitEndedByDeadline(Throwable failure, long budgetMillis, long connectionTimeoutMillis) {
        long bound = deadlineBoundMillis(failure).orElseThrow(() -> new AssertionError(
                "no pool wait bounded by a deadline among the causes of " + failure, failure));
        if (bound <= 0 || bound > budgetMillis) {
            throw new AssertionError("a bound of " + bound + " ms, not within the budget of " + budgetMillis + " ms");
        }
        long waited = reportedWaitMillis(failure).orElseThrow(() -> new AssertionError(
                "no HikariCP timeout among the causes of " + failure, failure));
        if (waited >= connectionTimeoutMillis) {
            throw new AssertionError("HikariCP reports a wait of " + waited + " ms, its whole connection timeout");
        }
    }

    private static void expect(String what, Object expected, Object actual) {
        if (!expected.equals(actual)) {
            throw new AssertionError(what + ": expected " + expected + " but was " + actual);
        }
    }

    /** Gives every held connection back; closing again does nothing. */
    @Override
    public void close() throws SQLException {
        for (Connection connection : held) {
            connection.close();
        }
    }

    /**
     * The wait HikariCP reported in its timeout ({@code request timed out after N ms}) anywhere in {@code failure}'s
     * causes; empty when none of them is HikariCP's timeout.
     */
    public static OptionalLong reportedWaitMillis(Throwable failure) {
        return millisIn(failure, TIMED_OUT_AFTER);
    }

    /**
     * The bound an operation's deadline set on the pool's wait ({@code the wait was bounded to N ms}), as db-bulkhead's
     * failure of that wait names it anywhere in {@code failure}'s causes; empty when no cause is that failure.
     */
    public static OptionalLong deadlineBoundMillis(Throwable failure) {
        return millisIn(failure, BOUNDED_TO);
    }

    private static OptionalLong millisIn(Throwable failure, Pattern message) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLTransientConnectionException && cause.getMessage() != null) {
                Matcher found = message.matcher(cause.getMessage());
                if (found.find()) {
                    return OptionalLong.of(Long.parseLong(found.group(1)));
                }
            }
        }
        return OptionalLong.empty();
    }

    private static int serverSessions(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE application_name = current_setting('application_name')")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
