package dev.dbbulkhead.budget;

import dev.dbbulkhead.jdbc.ungated.UngatedWork;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The connection limits of the PostgreSQL server a pool reaches, and which server that is.
 *
 * @param server            identifies the server: its port and the start time of its postmaster, as it reports
 *                          them, so that pools on different databases (or host names) of one server are one
 * @param maxConnections    {@code max_connections}
 * @param superuserReserved {@code superuser_reserved_connections}
 * @param reserved          {@code reserved_connections} (0 before PostgreSQL 16)
 */
public record ServerConnectionSlots(String server, int maxConnections, int superuserReserved, int reserved) {

    private static final String POSTGRESQL = "PostgreSQL";

    /** Why the limits of a pool's server could not be read. */
    public static final class Unreadable extends Exception {

        private static final long serialVersionUID = 1L;

        Unreadable(String message, @Nullable Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Asks the server behind {@code dataSource}, over one connection.
     *
     * @throws Unreadable when no connection could be had, or the database is not PostgreSQL
     */
    public static ServerConnectionSlots of(DataSource dataSource) throws Unreadable {
        // Outside the gates by design, whenever it runs: marked, so that no borrow need read its stack to tell.
        try (Connection connection = UngatedWork.allow(ServerConnectionSlots.class.getName(),
                dataSource::getConnection)) {
            String product = connection.getMetaData().getDatabaseProductName();
            if (!POSTGRESQL.equals(product)) {
                throw new Unreadable("the database is " + product + ", not PostgreSQL", null);
            }
            try (Statement statement = connection.createStatement();
                 ResultSet limits = statement.executeQuery("SELECT current_setting('port')"
                         + " || '@' || pg_postmaster_start_time(), current_setting('max_connections')::int,"
                         + " current_setting('superuser_reserved_connections')::int,"
                         + " coalesce(current_setting('reserved_connections', true), '0')::int")) {
                limits.next();
                return new ServerConnectionSlots(limits.getString(1), limits.getInt(2), limits.getInt(3),
                        limits.getInt(4));
            }
        } catch (SQLException | RuntimeException failed) {
            // HikariCP reports a pool that cannot open its first connection with a RuntimeException.
            throw new Unreadable("could not connect or read max_connections: " + failed.getMessage(), failed);
        }
    }

    /** Connections the server accepts from ordinary roles, less {@code otherConnections} that others may hold. */
    public long usableBy(long otherConnections) {
        return (long) maxConnections - superuserReserved - reserved - otherConnections;
    }
}
