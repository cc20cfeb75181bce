package dev.dbbulkhead.benchmarks.lending;

import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches a pool from the server's side during a run: every few milliseconds, on a connection of its own, how many of
 * the pool's sessions {@code pg_stat_activity} shows busy (state {@code active} or {@code idle in transaction}). Keeps
 * the peak and the number of samples.
 */
final class SessionSampler implements AutoCloseable {

    static final Duration PERIOD = Duration.ofMillis(5);
    private static final String BUSY_SESSIONS = "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?"
            + " AND usename = current_user AND state IN ('active', 'idle in transaction')";

    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stopped;
    private volatile int serverPeak;
    private volatile int samples;

    /**
     * @param applicationName the pool's sessions' {@code application_name}
     */
    SessionSampler(TestDatabase database, String applicationName) {
        thread = Thread.ofPlatform().daemon().name("pg-stat-activity-sampler").start(() -> {
            try (Connection connection = database.connect();
                 PreparedStatement busy = connection.prepareStatement(BUSY_SESSIONS)) {
                connection.setAutoCommit(true);
                busy.setString(1, applicationName);
                while (!stopped) {
                    try (ResultSet count = busy.executeQuery()) {
                        count.next();
                        serverPeak = Math.max(serverPeak, count.getInt(1));
                    }
                    samples++;
                    LockSupport.parkNanos(PERIOD.toNanos());
                }
            } catch (SQLException | RuntimeException e) {
                failure.set(e);
            }
        });
    }

    /** The most busy sessions of the pool the server showed at once. */
    int serverPeak() {
        return serverPeak;
    }

    int samples() {
        return samples;
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.join();
        if (failure.get() != null) {
            throw new IllegalStateException("sampling pg_stat_activity failed", failure.get());
        }
    }
}
