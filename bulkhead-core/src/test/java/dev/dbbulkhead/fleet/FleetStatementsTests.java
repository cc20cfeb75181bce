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
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The statements on the fleet's table, on a real PostgreSQL, each run alone: what a keep-alive extends and when it
 * extends nothing, what a settlement reads and writes, and the bounded transaction it runs in. Leases are expired by
 * writing the table, never by waiting for a clock.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class FleetStatementsTests {

    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Duration LOCK_WAIT = Duration.ofMillis(500);
    private static final int BUDGET = 12;

    private final TestDatabase database = PostgresFixture.freshSchema();
    private Connection connection;
    private FleetTable.Resolved table;

    @BeforeEach
    void resolve() throws SQLException {
        connection = database.connect();
        table = FleetTable.resolve(connection, "fleet", LOCK_WAIT, false);
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
    }

    @Test
    void aKeepAliveExtendsTheLeaseOnlyWhileTheOtherRowsAreTheOnesTheLastSettlementSaw() throws SQLException {
        String alone = write(request("a"), 6, 6);
        String expiresBefore = leaseExpiry("a");

        assertThat(keepAlive(request("a"), alone)).isEqualTo(6);
        assertThat(leaseExpiry("a")).as("extended from the server's clock").isGreaterThan(expiresBefore);

        write(request("b"), 6, 6);
        assertThat(keepAlive(request("a"), alone)).as("b joined").isEqualTo(-1);
        String withB = write(request("a"), 6, 6);
        assertThat(keepAlive(request("a"), withB)).isEqualTo(6);
        assertThat(keepAlive(new LeaseRequest("a", 2, 12, 6, TTL, null), withB)).as("another weight").isEqualTo(-1);
    }

    @Test
    void aKeepAliveExtendsNothingWhileAnyLeaseOfTheBudgetHasExpiredOrTheMemberIsBelowItsTarget() throws SQLException {
        write(request("b"), 6, 6);
        String makeUp = write(request("a"), 6, 6);
        database.execute("UPDATE fleet SET lease_expires_at = clock_timestamp() - interval '1 second'"
                + " WHERE member_id = 'b'");
        assertThat(keepAlive(request("a"), makeUp)).as("b's lease expired").isEqualTo(-1);

        database.execute("DELETE FROM fleet WHERE member_id = 'b'");
        String belowTarget = write(request("a"), 4, 6);
        assertThat(keepAlive(request("a"), belowTarget)).as("a grows only by settling").isEqualTo(-1);
    }

    @Test
    void aReadTakesTheServersClockOnceAndEveryRowEvenOfAnEmptyTable() throws SQLException {
        List<FleetStatements.Row> rows = new ArrayList<>();
        OffsetDateTime empty = FleetStatements.readRows(connection, table, rows);
        assertThat(rows).isEmpty();

        write(request("a"), 5, 6);
        OffsetDateTime now = FleetStatements.readRows(connection, table, rows);

        assertThat(now).isAfterOrEqualTo(empty);
        assertThat(rows).singleElement().satisfies(row -> {
            assertThat(row.memberId()).isEqualTo("a");
            assertThat(row.granted()).isEqualTo(5);
            assertThat(row.target()).isEqualTo(6);
            assertThat(row.budget()).isEqualTo(BUDGET);
            assertThat(row.sessionName()).isEqualTo("(db-bulkhead member a)");
            assertThat(row.total()).as("a table without the total's columns").isNull();
        });
    }

    @Test
    void aFailedStepRollsBackWhatItWroteAndItsLimitsEndWithTheTransaction() throws SQLException {
        assertThatThrownBy(() -> FleetStatements.inTransaction(connection, LOCK_WAIT, Duration.ofSeconds(2), () -> {
            write(request("a"), 6, 6);
            assertThat(setting("lock_timeout")).isEqualTo("500ms");
            assertThat(setting("statement_timeout")).isEqualTo("2s");
            assertThat(setting("idle_in_transaction_session_timeout")).isEqualTo("2s");
            throw new SQLException("the step failed");
        })).hasMessage("the step failed");

        assertThat(connection.getAutoCommit()).isTrue();
        assertThat(setting("lock_timeout")).isEqualTo("0");
        assertThat(rowCount()).isZero();
        assertThat(FleetStatements.inTransaction(connection, LOCK_WAIT, Duration.ofSeconds(2),
                () -> write(request("a"), 6, 6))).isNotNull();
        assertThat(rowCount()).isEqualTo(1);
    }

    @Test
    void aLeaveAndAFencingDeleteOnlyTheMembersRow() throws SQLException {
        write(request("a"), 4, 4);
        write(request("b"), 4, 4);
        write(request("c"), 4, 4);

        FleetStatements.leave(connection, table, "a");
        FleetStatements.delete(connection, table.name(), "b");
        FleetStatements.leave(connection, table, "never-joined");

        List<FleetStatements.Row> rows = new ArrayList<>();
        FleetStatements.readRows(connection, table, rows);
        assertThat(rows).extracting(FleetStatements.Row::memberId).containsExactly("c");
    }

    private String write(LeaseRequest request, int granted, int target) throws SQLException {
        OffsetDateTime now = OffsetDateTime.now();
        return FleetStatements.write(connection, table, request, granted, target, BUDGET, now,
                now.plus(request.leaseTtl()), null);
    }

    private int keepAlive(LeaseRequest request, String makeUp) throws SQLException {
        return FleetStatements.keepAlive(connection, table.keepAlive(), request, BUDGET, makeUp, null, Duration.ZERO);
    }

    private static LeaseRequest request(String member) {
        return new LeaseRequest(member, 1, 12, 6, TTL, "(db-bulkhead member " + member + ")");
    }

    private String leaseExpiry(String member) throws SQLException {
        return query("SELECT to_char(lease_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') FROM fleet"
                + " WHERE member_id = '" + member + "'");
    }

    private int rowCount() throws SQLException {
        return Integer.parseInt(query("SELECT count(*) FROM fleet"));
    }

    private String setting(String name) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet value = statement.executeQuery("SHOW " + name)) {
            value.next();
            return value.getString(1);
        }
    }

    private String query(String sql) throws SQLException {
        try (Connection side = database.connect(); Statement statement = side.createStatement();
             ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getString(1);
        }
    }
}
