package dev.dbbulkhead.clinic;

import dev.dbbulkhead.jpa.JpaTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The busy sessions of one application's pool as the server shows them — {@code pg_stat_activity} rows of its
 * {@code application_name} whose state is not {@code idle}: running a statement or inside a transaction — read on a
 * connection of its own every {@value #PERIOD_MILLIS} ms until closed. The period only spaces the samples; what is
 * judged is every sample taken.
 */
final class BusySessions implements AutoCloseable {

    private static final long PERIOD_MILLIS = 50;

    private final Connection connection;
    private final PreparedStatement query;
    private final List<Sample> samples = new ArrayList<>();
    private final Thread sampler;
    private volatile boolean sampling = true;
    private volatile SQLException failure;

    /** One look at the server: how many sessions were busy, and what each was doing. */
    record Sample(int busy, List<String> sessions) {
    }

    private BusySessions(String applicationName, boolean repeat) throws SQLException {
        connection = JpaTestDatabase.DATABASE.connect();
        query = connection.prepareStatement("SELECT state || ': ' || left(query, 80) FROM pg_stat_activity"
                + " WHERE application_name = ? AND state <> 'idle'");
        query.setString(1, applicationName);
        sampler = repeat ? Thread.ofPlatform().daemon().name("busy-sessions").start(this::sampleUntilClosed) : null;
    }

    /** Starts sampling the sessions of {@code applicationName}. */
    static BusySessions sample(String applicationName) throws SQLException {
        return new BusySessions(applicationName, true);
    }

    /** The busy sessions of {@code applicationName} now. */
    static Sample now(String applicationName) throws SQLException {
        try (BusySessions once = new BusySessions(applicationName, false)) {
            return once.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Stops sampling; every sample taken, in order. */
    List<Sample> samples() throws InterruptedException, SQLException {
        close();
        return List.copyOf(samples);
    }

    @Override
    public void close() throws InterruptedException, SQLException {
        sampling = false;
        if (sampler != null) {
            sampler.join();
        }
        connection.close();
        if (failure != null) {
            throw failure;
        }
    }

    private void sampleUntilClosed() {
        try {
            while (sampling) {
                samples.add(take());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS));
            }
        } catch (SQLException e) {
            failure = e;
        }
    }

    private Sample take() throws SQLException {
        List<String> sessions = new ArrayList<>();
        try (ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                sessions.add(rows.getString(1));
            }
        }
        return new Sample(sessions.size(), sessions);
    }
}
