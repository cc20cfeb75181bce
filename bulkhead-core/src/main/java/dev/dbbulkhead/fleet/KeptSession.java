package dev.dbbulkhead.fleet;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The session a coordinator keeps between renewals, so that no renewal pays for the pool's check of an idle
 * connection, and that listens for the fleet's changes meanwhile. One thread holds it at a time: a renewal, a leave or
 * a look for news takes it and keeps it again when done; one that finds it taken opens another, and of two kept at
 * once one goes back to the pool. A session that failed goes back to the pool too, which judges whether it can still
 * be used; the next renewal opens another.
 */
final class KeptSession {

    private final DataSource connections;
    private final Duration lockWait;
    private final Duration renewalTimeout;
    private final FleetAnnouncements announcements;
    /** The session kept between renewals; empty while one is in use or none was opened. */
    private final AtomicReference<@Nullable Connection> kept = new AtomicReference<>();

    /**
     * @param lockWait       the longest a statement outside a renewal's transaction waits for a lock
     * @param renewalTimeout the longest such a statement runs
     * @param announcements  which session listens for the fleet's changes: no session goes back to the pool listening
     */
    KeptSession(DataSource connections, Duration lockWait, Duration renewalTimeout,
                FleetAnnouncements announcements) {
        this.connections = connections;
        this.lockWait = lockWait;
        this.renewalTimeout = renewalTimeout;
        this.announcements = announcements;
    }

    /**
     * The kept session, or a new one from the pool bounded like a renewal: every statement outside the renewal's own
     * transaction (the keep-alive, a leave) waits for a lock at most the lock wait and runs at most the renewal
     * timeout.
     */
    Connection take() throws SQLException {
        Connection session = kept.getAndSet(null);
        if (session != null) {
            return session;
        }
        Connection connection = connections.getConnection();
        try (Statement limits = connection.createStatement()) {
            connection.setAutoCommit(true);
            limits.execute("SET lock_timeout = " + Math.max(1, lockWait.toMillis()) + "; SET statement_timeout = "
                    + Math.max(1, renewalTimeout.toMillis()));
        } catch (SQLException e) {
            discard(connection, e);
            throw e;
        }
        return connection;
    }

    /** The kept session, never a new one; null while one is in use or none was opened. */
    @Nullable Connection takeKept() {
        return kept.getAndSet(null);
    }

    /** Keeps the session for the next renewal; one already kept (renewals of several members at once) wins. */
    void keep(Connection connection) throws SQLException {
        if (!kept.compareAndSet(null, connection)) {
            giveBack(connection);
        }
    }

    /** Returns a session to the pool without the limits this coordinator set on it, listening to nothing. */
    void giveBack(Connection connection) throws SQLException {
        announcements.stopListening(connection);
        try (Connection returned = connection; Statement reset = returned.createStatement()) {
            reset.execute("RESET lock_timeout; RESET statement_timeout; UNLISTEN *");
        }
    }

    /**
     * Returns a session that failed to the pool: the pool judges whether it can still be used, and one that can is
     * first made to listen to nothing, so that no other borrower collects the fleet's notifications.
     */
    void discard(@Nullable Connection connection, SQLException failure) {
        if (connection == null) {
            return;
        }
        if (announcements.stopListening(connection)) {
            try (Statement reset = connection.createStatement()) {
                reset.execute("UNLISTEN *");
            } catch (SQLException unlisten) {
                failure.addSuppressed(unlisten);
            }
        }
        try {
            connection.close();
        } catch (SQLException close) {
            failure.addSuppressed(close);
        }
    }
}
