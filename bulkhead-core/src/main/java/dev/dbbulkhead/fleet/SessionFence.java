package dev.dbbulkhead.fleet;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Ends on PostgreSQL the sessions of a member whose lease expired, found by their {@code application_name}, and
 * waits a little for them to be gone: a member paused past its lease (a long GC pause, a frozen container, a cut
 * network) still has its connections open on the server, and its share must not be granted to anyone before they
 * are closed.
 *
 * <p>Only sessions this session may signal are ended, by PostgreSQL's own rule for {@code pg_terminate_backend}:
 * a superuser ends any; another role ends those of roles whose privileges it has, and, with the privileges of
 * {@code pg_signal_backend}, those of any role but a superuser. The others are counted, not waited for.
 */
final class SessionFence {

    /** Whether this session may end session {@code a}; {@code NULL} counts as no. */
    private static final String MAY_END = "(SELECT rolsuper FROM pg_roles WHERE rolname = current_user)"
            + " OR (NOT coalesce((SELECT rolsuper FROM pg_roles WHERE oid = a.usesysid), false)"
            + " AND (pg_has_role(a.usesysid, 'USAGE') OR pg_has_role('pg_signal_backend', 'USAGE')))";
    private static final String NAMED = " FROM pg_stat_activity a WHERE a.application_name = ?"
            + " AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'";
    private static final String END = "SELECT count(*) FILTER (WHERE CASE WHEN s.may_end THEN pg_terminate_backend(s.pid)"
            + " ELSE false END), count(*) FILTER (WHERE s.may_end IS NOT TRUE)"
            + " FROM (SELECT a.pid, " + MAY_END + " AS may_end" + NAMED + ") s";
    private static final String STILL_OPEN = "SELECT count(*)" + NAMED + " AND (" + MAY_END + ")";
    /** How often the wait for ended sessions to be gone looks again. */
    private static final long POLL_NANOS = Duration.ofMillis(2).toNanos();

    private SessionFence() {
    }

    /**
     * What ending a member's sessions came to.
     *
     * @param ended     the sessions the server was told to end
     * @param stillOpen those of them still open when the wait was over
     * @param unending  sessions of the member this session may not end
     */
    record Outcome(int ended, int stillOpen, int unending) {
    }

    /**
     * Ends the sessions named {@code sessionName} (this one excepted) and waits at most {@code wait} for them to be
     * gone. Runs inside the caller's transaction.
     */
    static Outcome end(Connection connection, String sessionName, Duration wait) throws SQLException {
        int ended;
        int unending;
        clearSnapshot(connection);
        try (PreparedStatement end = connection.prepareStatement(END)) {
            end.setString(1, sessionName);
            try (ResultSet counts = end.executeQuery()) {
                counts.next();
                ended = counts.getInt(1);
                unending = counts.getInt(2);
            }
        }
        long deadline = System.nanoTime() + wait.toNanos();
        int stillOpen = ended == 0 ? 0 : stillOpen(connection, sessionName);
        while (stillOpen > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(POLL_NANOS);
            stillOpen = stillOpen(connection, sessionName);
        }
        return new Outcome(ended, stillOpen, unending);
    }

    private static int stillOpen(Connection connection, String sessionName) throws SQLException {
        // A transaction reads pg_stat_activity from a snapshot taken at its first read: without clearing it, the
        // sessions just ended would seem open until the transaction ends.
        clearSnapshot(connection);
        try (PreparedStatement count = connection.prepareStatement(STILL_OPEN)) {
            count.setString(1, sessionName);
            try (ResultSet open = count.executeQuery()) {
                open.next();
                return open.getInt(1);
            }
        }
    }

    private static void clearSnapshot(Connection connection) throws SQLException {
        try (Statement clear = connection.createStatement()) {
            clear.execute("SELECT pg_stat_clear_snapshot()");
        }
    }
}
