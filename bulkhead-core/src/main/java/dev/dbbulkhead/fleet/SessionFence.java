package dev.dbbulkhead.fleet;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * Ends on PostgreSQL the sessions of a member whose lease expired, found by their {@code application_name}, and
 * waits, within a bound, until the server no longer lists them: a member paused past its lease (a long GC pause, a
 * frozen container, a cut network) still has its connections open on the server, and its share must not be granted
 * to anyone before they are closed. {@code pg_terminate_backend} only signals a session, which is gone some time
 * later, so the wait is on what the server lists, never on the signal.
 *
 * <p>Only sessions of the fleet's own kind are ever ended: named exactly as the member's sessions are (a name of the
 * {@linkplain FleetSettings#isMemberSessionName member form}, which the caller checks), in this database, and of the
 * role this session runs as. Sessions of that name under another role are counted, never ended.
 */
final class SessionFence {

    private static final String NAMED_HERE = " FROM pg_stat_activity a WHERE a.application_name = ?"
            + " AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'"
            + " AND a.datname = current_database()";
    private static final String OWN_ROLE = "(SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user)";
    /** Signals every listed session again at each look: one that appeared after the first look is ended too. */
    private static final String END = "SELECT a.pid, pg_terminate_backend(a.pid)" + NAMED_HERE
            + " AND a.usesysid = " + OWN_ROLE;
    private static final String OF_OTHER_ROLES = "SELECT count(*)" + NAMED_HERE
            + " AND a.usesysid IS DISTINCT FROM " + OWN_ROLE;
    /** How often the wait for ended sessions to be gone looks again. */
    private static final long POLL_NANOS = Duration.ofMillis(2).toNanos();

    private SessionFence() {
    }

    /**
     * What ending a member's sessions came to.
     *
     * @param ended     the sessions the server was told to end
     * @param stillOpen those of them still listed by the server when the wait was over
     * @param unending  sessions of the member's name under another role, not ended
     */
    record Outcome(int ended, int stillOpen, int unending) {
    }

    /**
     * Ends the sessions named {@code sessionName} (this one excepted) and waits at most {@code wait} for the server
     * to list none of them. Runs inside the caller's transaction.
     */
    static Outcome end(Connection connection, String sessionName, Duration wait) throws SQLException {
        Set<Integer> ended = new HashSet<>();
        long deadline = System.nanoTime() + wait.toNanos();
        int stillOpen = endListed(connection, sessionName, ended);
        while (stillOpen > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(POLL_NANOS);
            stillOpen = endListed(connection, sessionName, ended);
        }
        return new Outcome(ended.size(), stillOpen, ofOtherRoles(connection, sessionName));
    }

    /** @return how many sessions of the name the server still lists, each told (again) to end */
    private static int endListed(Connection connection, String sessionName, Set<Integer> ended) throws SQLException {
        clearSnapshot(connection);
        int listed = 0;
        try (PreparedStatement end = connection.prepareStatement(END)) {
            end.setString(1, sessionName);
            try (ResultSet signalled = end.executeQuery()) {
                while (signalled.next()) {
                    // False: the process was gone by the time it was signalled.
                    if (signalled.getBoolean(2)) {
                        ended.add(signalled.getInt(1));
                        listed++;
                    }
                }
            }
        }
        return listed;
    }

    private static int ofOtherRoles(Connection connection, String sessionName) throws SQLException {
        clearSnapshot(connection);
        try (PreparedStatement count = connection.prepareStatement(OF_OTHER_ROLES)) {
            count.setString(1, sessionName);
            try (ResultSet open = count.executeQuery()) {
                open.next();
                return open.getInt(1);
            }
        }
    }

    /**
     * A transaction reads {@code pg_stat_activity} from a snapshot taken at its first read: without clearing it, the
     * sessions just ended would seem open until the transaction ends, and sessions opened since would not show.
     */
    private static void clearSnapshot(Connection connection) throws SQLException {
        try (Statement clear = connection.createStatement()) {
            clear.execute("SELECT pg_stat_clear_snapshot()");
        }
    }
}
