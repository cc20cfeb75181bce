package dev.dbbulkhead.fleet.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Whether other members can fence this one, checked once it has joined: its pool's sessions must carry the member's
 * name on the server, and run as the coordinator's role in the coordinator's database, the only sessions a renewal
 * ends. Either missing, a member paused past its lease keeps its connections open on the server while its share is
 * granted to others — which the finding says, at start-up, instead of leaving a silent gap. The coordinator's
 * session is looked up on the server by its name, as fencing looks sessions up: once the member has joined, the
 * coordinator holds its one connection.
 */
public final class FencingReadiness {

    /** This session's name, role and database, and the role and database of the session named as the coordinator's. */
    private static final String SESSIONS = "SELECT current_setting('application_name'), current_user::text,"
            + " current_database()::text, coordinator.usename::text, coordinator.datname::text"
            + " FROM (SELECT 1) AS this_session LEFT JOIN LATERAL (SELECT usename, datname FROM pg_stat_activity"
            + " WHERE application_name = ? ORDER BY backend_start LIMIT 1) AS coordinator ON true";

    private FencingReadiness() {
    }

    /**
     * Checks on a connection of the member's pool, which it borrows, against the coordinator's session named
     * {@link SessionNames#coordinator()}, which must be open (as it is once the member has joined).
     *
     * @return why this member cannot be fenced; empty when it can
     */
    public static Optional<String> check(FleetPool pool) {
        SessionNames names = pool.sessionNames();
        if (names == null) {
            return Optional.of("pool " + pool.pool().getPoolName() + " had opened connections before the fleet"
                    + " could name its sessions, so other members cannot end them if this instance is paused past its"
                    + " lease; the pool also started above its floor");
        }
        String coordinatorSession = names.coordinator();
        String sessionName;
        String role;
        String database;
        String coordinatorRole;
        String coordinatorDatabase;
        try (Connection connection = pool.pool().getConnection();
             PreparedStatement query = connection.prepareStatement(SESSIONS)) {
            query.setString(1, coordinatorSession);
            try (ResultSet result = query.executeQuery()) {
                result.next();
                sessionName = result.getString(1);
                role = result.getString(2);
                database = result.getString(3);
                coordinatorRole = result.getString(4);
                coordinatorDatabase = result.getString(5);
            }
        } catch (SQLException e) {
            return Optional.of("could not read the name of pool " + pool.pool().getPoolName() + "'s sessions: "
                    + e.getMessage());
        }
        if (!names.member().equals(sessionName)) {
            return Optional.of("the sessions of pool " + pool.pool().getPoolName() + " are named '" + sessionName
                    + "', not '" + names.member() + "' (an ApplicationName in the JDBC URL overrides the one the"
                    + " fleet sets: remove it, or set it as spring.datasource.hikari.data-source-properties"
                    + ".ApplicationName), so other members cannot end them if this instance is paused past its lease");
        }
        if (coordinatorRole == null || coordinatorDatabase == null) {
            return Optional.of("could not check that the coordinator may end this member's sessions: the server"
                    + " lists no session named '" + coordinatorSession + "' (the coordinator's)");
        }
        if (!role.equals(coordinatorRole) || !database.equals(coordinatorDatabase)) {
            return Optional.of("the pool's sessions run as role '" + role + "' in database '" + database
                    + "' and the coordinator's as role '" + coordinatorRole + "' in database '" + coordinatorDatabase
                    + "': members end only sessions of their own role in their own database, so every member must"
                    + " connect as the same role to the same database");
        }
        return Optional.empty();
    }
}
