package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fleet's announcements alone: the payloads read without a database, what a listening session hears on a real
 * PostgreSQL from sessions of its own. That nothing was heard is read only after a round trip that would have
 * carried it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class FleetAnnouncementsTests {

    private static final String TABLE = "s.fleet";
    private static final String CHANNEL = FleetAnnouncements.channelOf(TABLE);

    private final TestDatabase database = PostgresFixture.freshSchema();
    private Connection listener;
    private Connection announcer;

    @AfterEach
    void close() throws SQLException {
        for (Connection session : new Connection[] {listener, announcer}) {
            if (session != null) {
                session.close();
            }
        }
    }

    @Test
    void anAnnouncedTotalIsReadOnlyInTheExactFormAMemberWritesFromOneToTheBudget() {
        String announcement = FleetAnnouncements.totalAnnouncement("s.fleet", Integer.MAX_VALUE);

        assertThat(FleetAnnouncements.announcedTotalIn(announcement, "s.fleet", Integer.MAX_VALUE))
                .as("the longest legal value").isEqualTo(Integer.MAX_VALUE);
        assertThat(FleetAnnouncements.announcedTotalIn(announcement, "s.fleet", 200)).as("past the budget")
                .isZero();
        assertThat(FleetAnnouncements.announcedTotalIn("s.fleet total 2147483648", "s.fleet", Integer.MAX_VALUE))
                .as("past an int").isZero();
        assertThat(FleetAnnouncements.announcedTotalIn("s.fleet total 99999999999", "s.fleet",
                Integer.MAX_VALUE)).as("eleven digits").isZero();
        assertThat(FleetAnnouncements.announcedTotalIn("s.fleet total ", "s.fleet", 200)).as("none").isZero();
        assertThat(FleetAnnouncements.announcedTotalIn("", "s.fleet", 200)).isZero();
        assertThat(FleetAnnouncements.announcedTotalIn("s.fleet total 150", "t.fleet", 200))
                .as("another table's").isZero();
        assertThat(FleetAnnouncements.announcedTotalIn(
                FleetAnnouncements.totalAnnouncement("s.fleet", 150), "s.fleet", 200)).isEqualTo(150);
    }

    @Test
    void theChannelOfAnyTableIsAPlainIdentifierWithinTheServersSixtyThreeBytes() {
        String longest = "s".repeat(63) + "." + "t".repeat(63);

        assertThat(FleetAnnouncements.channelOf(longest)).matches("[a-z_][a-z0-9_]{0,62}");
        assertThat(FleetAnnouncements.channelOf(TABLE)).isEqualTo(FleetAnnouncements.channelOf("s.fleet"))
                .isNotEqualTo(FleetAnnouncements.channelOf("s.other"));
    }

    @Test
    void aMemberThatNeverRenewedHasHeardNothingAndAForgottenOneNothingSinceItsRenewal() {
        FleetAnnouncements announcements = new FleetAnnouncements(12);

        assertThat(announcements.heardAt("a")).isNull();
        assertThat(announcements.announcedTotal("a")).isEmpty();
        announcements.renewing("a");
        assertThat(announcements.heardAt("a")).isNotNull();
        announcements.forget("a");
        assertThat(announcements.heardAt("a")).isNull();
        assertThat(announcements.listens()).as("no session listens yet").isFalse();
    }

    @Test
    void aListeningSessionHearsAnotherSessionsTotalAsATotalAndAnyOtherAnnouncementAsAChange() throws SQLException {
        FleetAnnouncements announcements = new FleetAnnouncements(12);
        listener = database.connect();
        announcer = database.connect();
        announcements.listenOn(listener, TABLE, CHANNEL);
        assertThat(announcements.listensOn(listener)).isTrue();
        announcements.renewing("a");

        FleetAnnouncements.announce(announcer, CHANNEL, FleetAnnouncements.totalAnnouncement(TABLE, 7));
        Await.until("the total is heard", () -> heard(announcements, listener).announcedTotal("a").isPresent());
        assertThat(announcements.announcedTotal("a")).isEqualTo(OptionalInt.of(7));
        FleetAnnouncements.HeardAt atRenewal = announcements.heardAt("a");
        assertThat(announcements.changedSince(atRenewal)).as("a total alone is no change").isFalse();

        FleetAnnouncements.announce(announcer, CHANNEL, FleetAnnouncements.totalAnnouncement(TABLE, 13));
        Await.until("a total past the budget is heard as a change",
                () -> heard(announcements, listener).changedSince(atRenewal));
        assertThat(announcements.announcedTotal("a")).isEqualTo(OptionalInt.of(7));

        announcements.renewing("a");
        assertThat(announcements.announcedTotal("a")).as("nothing since the renewal").isEmpty();
        FleetAnnouncements.announce(announcer, CHANNEL, "");
        FleetAnnouncements.HeardAt afterRenewal = announcements.heardAt("a");
        Await.until("a change is heard", () -> heard(announcements, listener).changedSince(afterRenewal));
    }

    @Test
    void aListeningSessionDoesNotHearItsOwnAnnouncements() throws SQLException {
        FleetAnnouncements announcements = new FleetAnnouncements(12);
        listener = database.connect();
        announcements.listenOn(listener, TABLE, CHANNEL);
        announcements.renewing("a");
        FleetAnnouncements.HeardAt atRenewal = announcements.heardAt("a");

        FleetAnnouncements.announce(listener, CHANNEL, "");
        FleetAnnouncements.announce(listener, CHANNEL, FleetAnnouncements.totalAnnouncement(TABLE, 5));
        roundTrip(listener);
        announcements.listenOn(listener, TABLE, CHANNEL);

        assertThat(announcements.changedSince(atRenewal)).isFalse();
        assertThat(announcements.announcedTotal("a")).isEmpty();
    }

    @Test
    void aSessionThatStartsToListenCountsAsAChangeAndStopsListeningWhenForgotten() throws SQLException {
        FleetAnnouncements announcements = new FleetAnnouncements(12);
        listener = database.connect();
        announcer = database.connect();
        announcements.renewing("a");
        FleetAnnouncements.HeardAt beforeListening = announcements.heardAt("a");

        announcements.listenOn(listener, TABLE, CHANNEL);

        assertThat(announcements.changedSince(beforeListening))
                .as("what was announced while nobody listened went unheard").isTrue();
        assertThat(listeningChannels(listener)).isEqualTo(1);
        assertThat(announcements.stopListening(announcer)).as("another session").isFalse();
        assertThat(announcements.stopListening(listener)).isTrue();
        assertThat(announcements.listens()).isFalse();
    }

    /** Takes in what the session has received so far, without a round trip, as a coordinator does. */
    private static FleetAnnouncements heard(FleetAnnouncements announcements, Connection session) {
        try {
            announcements.hear(session, TABLE);
            return announcements;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void roundTrip(Connection session) throws SQLException {
        try (Statement statement = session.createStatement()) {
            statement.execute("SELECT 1");
        }
    }

    private static int listeningChannels(Connection session) throws SQLException {
        try (Statement statement = session.createStatement();
             ResultSet count = statement.executeQuery("SELECT count(*) FROM pg_listening_channels()")) {
            count.next();
            return count.getInt(1);
        }
    }
}
