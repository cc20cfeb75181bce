package dev.dbbulkhead.fleet.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Whether other members can fence this one, checked once when it joins: its pool's sessions must carry the
 * member's name on the server, and run as the coordinator's role in the coordinator's database, the only sessions a
 * renewal ends. Either missing, a member
 * paused past its lease keeps its connections open on the server while its share is granted to others — which the
 * finding says, at start-up, instead of leaving a silent gap.
 */
public final class FencingReadiness {

    /** Who the coordinator's session is: a member ends only sessions of its own role in its own database. */
    private static final String WHO = "SELECT current_user, current_database()";

    private FencingReadiness() {
    }

    /** @return why this member cannot be fenced; empty when it can */
    public static Optional<String> check(FleetPool pool, DataSource coordinatorConnections) {
        SessionNames names = pool.sessionNames();
        if (names == null) {
            return Optional.of("pool " + pool.pool().getPoolName() + " had opened connections before the fleet"
                    + " could name its sessions, so other members cannot end them if this instance is paused past its"
                    + " lease; the pool also started above its floor");
        }
        String sessionName;
        String role;
        String database;
        try (Connection connection = pool.pool().getConnection();
             PreparedStatement query = connection.prepareStatement(
                     "SELECT current_setting('application_name'), current_user, current_database()")) {
            try (ResultSet result = query.executeQuery()) {
                result.next();
                sessionName = result.getString(1);
                role = result.getString(2);
                database = result.getString(3);
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
        try (Connection connection = coordinatorConnections.getConnection();
             PreparedStatement query = connection.prepareStatement(WHO)) {
            try (ResultSet result = query.executeQuery()) {
                result.next();
                if (!role.equals(result.getString(1)) || !database.equals(result.getString(2))) {
                    return Optional.of("the pool's sessions run as role '" + role + "' in database '" + database
                            + "' and the coordinator's as role '" + result.getString(1) + "' in database '"
                            + result.getString(2) + "': members end only sessions of their own role in their own"
                            + " database, so every member must connect as the same role to the same database");
                }
            }
        } catch (SQLException e) {
            return Optional.of("could not check that the coordinator may end this member's sessions: "
                    + e.getMessage());
        }
        return Optional.empty();
    }
}
