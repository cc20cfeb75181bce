package dev.dbbulkhead.fleet.support;

import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Set;
import java.util.TreeSet;

/** A pool's sessions as the server lists them, by their {@code application_name}. */
final class PoolSessions {

    private final TestDatabase database;
    private final String applicationName;

    PoolSessions(TestDatabase database, String applicationName) {
        this.database = database;
        this.applicationName = applicationName;
    }

    /** The server processes of the pool's sessions. */
    Set<Integer> pids() {
        try (Connection side = database.connect(); PreparedStatement query = side.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE application_name = ?")) {
            query.setString(1, applicationName);
            Set<Integer> pids = new TreeSet<>();
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    pids.add(result.getInt(1));
                }
            }
            return pids;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
