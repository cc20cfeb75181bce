package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the coordinators of a fleet hear of each other's changes on a real PostgreSQL: each member's coordinator has
 * a pool of its own, as each instance of a fleet has. A change is heard once the server has passed it on, which the
 * tests wait for; that nothing was heard is read only after a round trip that would have carried it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class PostgresFleetAnnouncementTests {

    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Duration LOCK_WAIT = Duration.ofMillis(500);
    private static final Duration RENEWAL_TIMEOUT = Duration.ofSeconds(2);

    private final TestDatabase database = PostgresFixture.freshSchema();
    private final HikariDataSource firstPool = database.pool(1);
    private final HikariDataSource secondPool = database.pool(1);
    private final PostgresFleetCoordinator first = coordinator(firstPool);
    private final PostgresFleetCoordinator second = coordinator(secondPool);

    @AfterEach
    void close() {
        firstPool.close();
        secondPool.close();
    }

    @Test
    void aCoordinatorAnnouncesOnceItHasRenewedOnPgJdbcAndHearsNothingWhileTheFleetStaysAsItIs() {
        assertThat(first.announcesChanges()).as("before its first renewal").isFalse();
        assertThat(heardOfAChange(first, "a")).as("a member that never renewed").isTrue();

        first.renew(request("a", 6));
        first.renew(request("a", 6));

        assertThat(first.announcesChanges()).isTrue();
        assertThat(heardOfAChange(first, "a")).as("its own renewals are not news to it").isFalse();
    }

    @Test
    void aJoinIsHeardByTheOtherMembersCoordinator() {
        first.renew(request("a", 6));
        first.renew(request("a", 6));
        assertThat(heardOfAChange(first, "a")).isFalse();

        second.renew(request("b", 0));

        Await.until("the first coordinator heard of the join", () -> heardOfAChange(first, "a"));
        first.renew(request("a", 6));
        assertThat(heardOfAChange(first, "a")).as("heard once: after the renewal it is settled again").isFalse();
    }

    @Test
    void aLeaveIsHeardButAGrowthOrAKeepAliveIsNot() {
        first.renew(request("a", 6));
        second.renew(request("b", 0));
        Await.until("the first coordinator heard of the join", () -> heardOfAChange(first, "a"));
        assertThat(first.renew(request("a", 6)).granted()).as("shrinks to its target").isEqualTo(6);
        assertThat(second.renew(request("b", 0)).granted()).as("grows into the share given back").isEqualTo(6);
        second.renew(request("b", 6));

        // A round trip of the first's session after the second's growth and keep-alive, neither of which changed the
        // fleet's make-up: they announced nothing to hear.
        first.renew(request("a", 6));
        assertThat(heardOfAChange(first, "a")).isFalse();

        second.leave("b");

        Await.until("the first coordinator heard of the leave", () -> heardOfAChange(first, "a"));
        assertThat(first.renew(request("a", 6)).granted()).as("grows into the share given back").isEqualTo(12);
    }

    @Test
    void aMovedTotalIsHeardWithItsValueAsNoChangeOfTheFleetAndAHeldOneIsNotHeard() {
        int[] next = {12};
        PostgresFleetCoordinator following = new PostgresFleetCoordinator(firstPool, "fleet", 12, LOCK_WAIT,
                RENEWAL_TIMEOUT, fleet -> OptionalInt.of(next[0]), Duration.ofNanos(1));
        PostgresFleetCoordinator listening = new PostgresFleetCoordinator(secondPool, "fleet", 12, LOCK_WAIT,
                RENEWAL_TIMEOUT, fleet -> OptionalInt.empty(), Duration.ofHours(1));
        listening.renew(request("b", 0));
        following.renew(request("a", 0));
        Await.until("the join and the first total are heard", () -> heardOfAChange(listening, "b"));
        listening.renew(request("b", 6));

        following.renew(request("a", 6));
        listening.renew(request("b", 6));
        assertThat(listening.newsFor("b")).as("a total held at 12 is no news").isEqualTo(FleetNews.UNCHANGED);

        next[0] = 8;
        assertThat(following.renew(request("a", 6)).total()).isEqualTo(8);

        Await.until("the moved total is heard", () -> {
            FleetNews news = listening.newsFor("b");
            assertThat(news).as("the fleet's make-up is as it was").isNotEqualTo(FleetNews.MAY_HAVE_CHANGED);
            return news.equals(new FleetNews.TotalMoved(8));
        });
        assertThat(listening.renew(request("b", 6)).total()).isEqualTo(8);
        assertThat(listening.newsFor("b")).as("taken in by the renewal").isEqualTo(FleetNews.UNCHANGED);
    }

    @Test
    void anythingElseNotifiedOnTheFleetsChannelIsAChangeOfTheFleetAndNeverATotal() throws SQLException {
        first.renew(request("a", 6));
        first.renew(request("a", 6));
        String table = qualifiedTable();
        List<String> forged = List.of("", table + " total 0", table + " total 13", table + " total 012",
                table + " total -1", table + " total 12 ", table + " total 99999999999", table + "  total 6",
                "other.fleet total 6", "x".repeat(7999));

        for (String payload : forged) {
            notifyOnChannel(table, payload);
            Await.until("'" + payload.substring(0, Math.min(40, payload.length())) + "' is heard as a change",
                    () -> heardOfAChange(first, "a"));
            assertThat(first.announcedTotal("a")).as("never taken for a total").isEmpty();
            first.renew(request("a", 6));
        }

        notifyOnChannel(table, table + " total 12");
        FleetNews[] heard = new FleetNews[1];
        Await.until("the largest total of the budget is heard",
                () -> !(heard[0] = first.newsFor("a")).equals(FleetNews.UNCHANGED));
        assertThat(heard[0]).isEqualTo(new FleetNews.TotalMoved(12));
    }

    /** Whether the coordinator tells the member to renew: it heard of a change of the fleet, or cannot tell. */
    private static boolean heardOfAChange(PostgresFleetCoordinator coordinator, String memberId) {
        return coordinator.newsFor(memberId).equals(FleetNews.MAY_HAVE_CHANGED);
    }

    private String qualifiedTable() throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet schema = statement.executeQuery("SELECT quote_ident(current_schema())")) {
            schema.next();
            return schema.getString(1) + ".fleet";
        }
    }

    private void notifyOnChannel(String table, String payload) throws SQLException {
        try (Connection connection = database.connect();
             PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
            notify.setString(1, FleetAnnouncements.channelOf(table));
            notify.setString(2, payload);
            notify.executeQuery().close();
        }
    }

    @Test
    void aListeningSessionTheServerEndedIsNoticedWithoutARoundTripAndTheNextRenewalListensOnAnother()
            throws SQLException {
        first.renew(request("a", 6));
        first.renew(request("a", 6));
        assertThat(heardOfAChange(first, "a")).isFalse();
        try (Connection admin = database.connect(); Statement statement = admin.createStatement();
             ResultSet ended = statement.executeQuery("SELECT count(pg_terminate_backend(pid))::int"
                     + " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                     + " AND query LIKE '%fleet%'")) {
            ended.next();
            assertThat(ended.getInt(1)).as("the coordinator's session, the last to write the table").isEqualTo(1);
        }

        Await.until("the first coordinator finds its listening session ended", () -> heardOfAChange(first, "a"));
        Await.until("a renewal on another session", () -> {
            try {
                return first.renew(request("a", 6)).granted() == 12;
            } catch (FleetUnavailableException theEndedSessionWasLentAgain) {
                return false;
            }
        });
        assertThat(first.announcesChanges()).isTrue();

        second.renew(request("b", 0));
        Await.until("the new session hears the join", () -> heardOfAChange(first, "a"));
    }

    @Test
    void aSessionGivenBackToThePoolListensToNothing() throws SQLException {
        first.renew(request("a", 6));
        assertThat(listeningChannels(database.connect())).as("another session").isZero();

        first.leave("a");

        try (Connection returned = firstPool.getConnection()) {
            assertThat(listeningChannels(returned)).isZero();
        }
    }

    private static int listeningChannels(Connection session) throws SQLException {
        try (Connection used = session; Statement statement = used.createStatement();
             ResultSet count = statement.executeQuery("SELECT count(*) FROM pg_listening_channels()")) {
            count.next();
            return count.getInt(1);
        }
    }

    private static PostgresFleetCoordinator coordinator(HikariDataSource pool) {
        return new PostgresFleetCoordinator(pool, "fleet", 12, LOCK_WAIT, RENEWAL_TIMEOUT);
    }

    private static LeaseRequest request(String member, int inUse) {
        return new LeaseRequest(member, 1, 12, inUse, TTL, null);
    }
}
