package dev.dbbulkhead.saturation;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** What a sampler can see of a database's saturation, judged once on its first session. */
public enum SignalAccess {
    /** Every session of the server: the role is a superuser or has {@code pg_read_all_stats}. */
    WHOLE_SERVER,
    /**
     * Only the sessions of the sampler's own role: PostgreSQL hides what other roles' sessions do, so work of other
     * applications is not seen.
     */
    OWN_ROLE_ONLY,
    /** Not PostgreSQL: there are no signals to read, and the limits follow latency alone. */
    NOT_POSTGRESQL;

    /** The access of {@code connection}'s role to its server's statistics. */
    public static SignalAccess of(Connection connection) throws SQLException {
        if (!"PostgreSQL".equals(connection.getMetaData().getDatabaseProductName())) {
            return NOT_POSTGRESQL;
        }
        try (Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT pg_has_role('pg_read_all_stats', 'USAGE')")) {
            row.next();
            return row.getBoolean(1) ? WHOLE_SERVER : OWN_ROLE_ONLY;
        }
    }
}
