package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fleet's table as a coordinator finds it, on a real PostgreSQL: where it is created, how it is named from then
 * on, which older shapes are brought up to date and which relations are refused.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class FleetTableTests {

    private static final Duration LOCK_WAIT = Duration.ofMillis(500);

    private final TestDatabase database = PostgresFixture.freshSchema();
    private final List<Connection> opened = new ArrayList<>();

    @AfterEach
    void close() throws SQLException {
        for (Connection connection : opened) {
            connection.close();
        }
    }

    @Test
    void onlyAPlainIdentifierOptionallySchemaQualifiedIsTakenForTheTablesName() {
        assertThat(FleetTable.checkedName("fleet")).isEqualTo("fleet");
        assertThat(FleetTable.checkedName("s.fleet_2")).isEqualTo("s.fleet_2");
        for (String refused : new String[] {null, "", "fleet; DROP TABLE x", "\"Fleet\"", "a.b.c", "2fleet",
                "f".repeat(64)}) {
            assertThatThrownBy(() -> FleetTable.checkedName(refused)).as(refused)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("table must be an unquoted identifier");
        }
    }

    @Test
    void anUnqualifiedTableIsCreatedInTheSessionsCurrentSchemaAndNamedWithItFromThenOn() throws SQLException {
        Connection connection = connect();

        FleetTable.Resolved resolved = FleetTable.resolve(connection, "fleet", LOCK_WAIT, false);

        String qualified = database.schema() + ".fleet";
        assertThat(resolved.name()).isEqualTo(qualified);
        assertThat(resolved.totalColumns()).isFalse();
        assertThat(resolved.channel()).isEqualTo(FleetAnnouncements.channelOf(qualified));
        assertThat(resolved.keepAlive()).isEqualTo(FleetStatements.keepAliveStatement(qualified, false));
        assertThat(connection.getAutoCommit()).as("as the caller had it").isTrue();
        assertThat(count("SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + database.schema()
                + "' AND table_name = 'fleet'")).isEqualTo(1);
    }

    @Test
    void aTableOfAFleetThatSplitItsBudgetGetsTheTotalsColumnsOnceItsTotalFollowsTheDatabase() throws SQLException {
        FleetTable.resolve(connect(), "fleet", LOCK_WAIT, false);

        FleetTable.Resolved following = FleetTable.resolve(connect(), "fleet", LOCK_WAIT, true);

        assertThat(following.totalColumns()).isTrue();
        assertThat(following.keepAlive()).isEqualTo(FleetStatements.keepAliveStatement(following.name(), true));
        assertThat(FleetTable.resolve(connect(), "fleet", LOCK_WAIT, false).totalColumns())
                .as("a member that splits its budget serves on it too").isTrue();
    }

    @Test
    void aTableMadeBeforeMembersNamedTheirSessionsGetsTheColumnItLacks() throws SQLException {
        database.execute(FleetTable.createStatement("fleet").replace(", session_name text", ""));

        FleetTable.resolve(connect(), "fleet", LOCK_WAIT, false);

        assertThat(count("SELECT count(*) FROM information_schema.columns WHERE table_schema = '" + database.schema()
                + "' AND table_name = 'fleet' AND column_name = 'session_name'")).isEqualTo(1);
    }

    @Test
    void aRelationOfAnotherShapeIsRefusedAndLeftAsItIs() throws SQLException {
        database.execute("CREATE TABLE fleet (member_id text PRIMARY KEY, weight integer)",
                "CREATE VIEW fleet_view AS SELECT 1 AS member_id");

        assertThatThrownBy(() -> FleetTable.resolve(connect(), "fleet", LOCK_WAIT, true))
                .isInstanceOf(SQLException.class).hasMessageContaining("exists but is not a fleet table");
        assertThatThrownBy(() -> FleetTable.resolve(connect(), "fleet_view", LOCK_WAIT, false))
                .isInstanceOf(SQLException.class).hasMessageContaining("exists but is not a table (relkind 'v')");

        assertThat(count("SELECT count(*) FROM information_schema.columns WHERE table_schema = '" + database.schema()
                + "' AND table_name = 'fleet'")).as("nothing added").isEqualTo(2);
    }

    @Test
    void aQualifiedTableIsCreatedInItsSchemaWhateverTheSessionsCurrentOne() throws SQLException {
        String schema = database.schema() + "_elsewhere";
        database.execute("CREATE SCHEMA " + schema);

        FleetTable.Resolved resolved = FleetTable.resolve(connect(), schema + ".fleet", LOCK_WAIT, false);

        assertThat(resolved.name()).isEqualTo(schema + ".fleet");
        assertThat(count("SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + schema
                + "' AND table_name = 'fleet'")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + database.schema()
                + "' AND table_name = 'fleet'")).isZero();
    }

    private Connection connect() throws SQLException {
        Connection connection = database.connect();
        opened.add(connection);
        return connection;
    }

    private int count(String query) throws SQLException {
        try (Connection side = database.connect(); Statement statement = side.createStatement();
             ResultSet result = statement.executeQuery(query)) {
            result.next();
            return result.getInt(1);
        }
    }
}
