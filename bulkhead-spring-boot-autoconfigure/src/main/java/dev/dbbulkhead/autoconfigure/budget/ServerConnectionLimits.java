package dev.dbbulkhead.autoconfigure.budget;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The PostgreSQL server's connection limits, as the fleet budget is derived from them.
 *
 * @param maxConnections    {@code max_connections}
 * @param superuserReserved {@code superuser_reserved_connections}
 * @param reserved          {@code reserved_connections} (0 before PostgreSQL 16)
 */
public record ServerConnectionLimits(int maxConnections, int superuserReserved, int reserved) {

    /** Reads the limits through {@code dataSource}. */
    public static ServerConnectionLimits read(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet limits = statement.executeQuery("SELECT current_setting('max_connections')::int,"
                     + " current_setting('superuser_reserved_connections')::int,"
                     + " coalesce(current_setting('reserved_connections', true), '0')::int")) {
            limits.next();
            return new ServerConnectionLimits(limits.getInt(1), limits.getInt(2), limits.getInt(3));
        }
    }

    /** Connections the server accepts from ordinary roles, less {@code otherConnections} that others may hold. */
    public long usableBy(long otherConnections) {
        return (long) maxConnections - superuserReserved - reserved - otherConnections;
    }
}
