package dev.dbbulkhead.autoconfigure.saturation;

import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Sessions of the server waiting for one row's lock, held by another session's open transaction: lock contention as
 * the database's signals see it. Closing ends the holder's transaction, lets the waiters through and closes them all.
 */
public final class LockWaiters implements AutoCloseable {

    private final Connection holder;
    private final List<Connection> waiters;
    private final List<Future<?>> waits;
    private final ExecutorService threads;

    private LockWaiters(Connection holder, List<Connection> waiters, List<Future<?>> waits, ExecutorService threads) {
        this.holder = holder;
        this.waiters = waiters;
        this.waits = waits;
        this.threads = threads;
    }

    /** Locks row 1 of {@code table} (columns id and n), then returns once {@code count} sessions wait for it. */
    public static LockWaiters on(TestDatabase database, String table, int count) throws SQLException {
        Connection holder = database.connect();
        holder.setAutoCommit(false);
        String update = "UPDATE " + table + " SET n = n + 1 WHERE id = 1";
        try (Statement statement = holder.createStatement()) {
            statement.executeUpdate(update);
        }
        ExecutorService threads = Executors.newCachedThreadPool();
        List<Connection> waiters = new ArrayList<>();
        List<Future<?>> waits = new ArrayList<>();
        List<Integer> pids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Connection waiter = database.connect();
            waiters.add(waiter);
            pids.add(waiter.unwrap(org.postgresql.PGConnection.class).getBackendPID());
            waits.add(threads.submit(() -> {
                try (Statement statement = waiter.createStatement()) {
                    return statement.executeUpdate(update);
                }
            }));
        }
        try (Connection observer = database.connect();
             PreparedStatement waiting = observer.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE wait_event_type = 'Lock' AND pid = ANY (?)")) {
            waiting.setArray(1, observer.createArrayOf("int4", pids.toArray()));
            Await.until(count + " sessions waiting for the lock", () -> {
                try (ResultSet row = waiting.executeQuery()) {
                    row.next();
                    return row.getInt(1) == count;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        return new LockWaiters(holder, waiters, waits, threads);
    }

    @Override
    public void close() throws Exception {
        try {
            holder.rollback();
            for (Future<?> wait : waits) {
                wait.get();
            }
        } finally {
            holder.close();
            for (Connection waiter : waiters) {
                waiter.close();
            }
            threads.shutdownNow();
        }
    }
}
