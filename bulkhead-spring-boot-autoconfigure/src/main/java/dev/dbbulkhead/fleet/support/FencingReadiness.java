package dev.dbbulkhead.fleet.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Whether other members can fence this one, checked once when it joins: its pool's sessions must carry the
 * member's name on the server, and the coordinator's role must be allowed to end them. Either missing, a member
 * paused past its lease keeps its connections open on the server while its share is granted to others — which the
 * finding says, at start-up, instead of leaving a silent gap.
 */
public final class FencingReadiness {

    /** PostgreSQL's rule for {@code pg_terminate_backend}, asked of the coordinator's role about the pool's role. */
    private static final String MAY_END = "SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)"
            + " OR (NOT coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = ?), false)"
            + " AND (pg_has_role(?, 'USAGE') OR pg_has_role('pg_signal_backend', 'USAGE')))";

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
        try (Connection connection = pool.pool().getConnection();
             PreparedStatement query = connection.prepareStatement(
                     "SELECT current_setting('application_name'), current_user")) {
            try (ResultSet result = query.executeQuery()) {
                result.next();
                sessionName = result.getString(1);
                role = result.getString(2);
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
             PreparedStatement query = connection.prepareStatement(MAY_END)) {
            query.setString(1, role);
            query.setString(2, role);
            try (ResultSet result = query.executeQuery()) {
                result.next();
                if (!result.getBoolean(1)) {
                    return Optional.of("the coordinator's role may not end the sessions of role '" + role
                            + "': grant it that role, or pg_signal_backend (which ends no superuser's sessions)");
                }
            }
        } catch (SQLException e) {
            return Optional.of("could not check that the coordinator may end this member's sessions: "
                    + e.getMessage());
        }
        return Optional.empty();
    }
}
