package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The session a coordinator keeps, on a real PostgreSQL behind a pool: the limits it sets on a session it opens, the
 * session it keeps and takes again, and what a session looks like when it is back in the pool.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class KeptSessionTests {

    private static final Duration LOCK_WAIT = Duration.ofMillis(100);
    private static final Duration RENEWAL_TIMEOUT = Duration.ofMillis(400);
    private static final String TABLE = "s.fleet";

    private final TestDatabase database = PostgresFixture.freshSchema();
    private final HikariDataSource pool = database.pool(2);
    private final FleetAnnouncements announcements = new FleetAnnouncements(12);
    private final KeptSession kept = new KeptSession(pool, LOCK_WAIT, RENEWAL_TIMEOUT, announcements);

    @AfterEach
    void close() {
        pool.close();
    }

    @Test
    void aNewSessionWaitsForALockAtMostTheLockWaitAndRunsAtMostTheRenewalTimeout() throws SQLException {
        assertThat(kept.takeKept()).as("none opened yet").isNull();

        Connection session = kept.take();

        assertThat(setting(session, "lock_timeout")).isEqualTo("100ms");
        assertThat(setting(session, "statement_timeout")).isEqualTo("400ms");
        assertThat(session.getAutoCommit()).isTrue();
        kept.giveBack(session);
    }

    @Test
    void theKeptSessionIsTheOneTakenNextUntilSomeoneHoldsIt() throws SQLException {
        Connection session = kept.take();
        kept.keep(session);

        Connection again = kept.take();
        assertThat(again).isSameAs(session);
        assertThat(kept.takeKept()).as("held by the one that took it").isNull();

        kept.keep(again);
        assertThat(kept.takeKept()).isSameAs(session);
        kept.giveBack(session);
    }

    @Test
    void ofTwoSessionsKeptAtOnceTheSecondGoesBackToThePoolWithoutItsLimitsListeningToNothing()
            throws SQLException {
        Connection first = kept.take();
        Connection second = kept.take();
        announcements.listenOn(second, TABLE, FleetAnnouncements.channelOf(TABLE));
        assertThat(announcements.listensOn(second)).isTrue();

        kept.keep(first);
        kept.keep(second);

        assertThat(announcements.listens()).as("the listening session went back").isFalse();
        assertThat(kept.takeKept()).isSameAs(first);
        // The first is held, so the pool of two lends the second again.
        try (Connection returned = pool.getConnection()) {
            assertThat(setting(returned, "lock_timeout")).isEqualTo("0");
            assertThat(setting(returned, "statement_timeout")).isEqualTo("0");
            assertThat(listeningChannels(returned)).isZero();
        }
        kept.giveBack(first);
    }

    @Test
    void aFailedSessionThatListenedIsMadeToListenToNothingBeforeThePoolJudgesIt() throws SQLException {
        Connection first = kept.take();
        Connection listening = kept.take();
        announcements.listenOn(listening, TABLE, FleetAnnouncements.channelOf(TABLE));
        SQLException failure = new SQLException("the renewal failed");

        kept.discard(listening, failure);
        kept.discard(null, failure);

        assertThat(failure.getSuppressed()).as("nothing else failed").isEmpty();
        assertThat(announcements.listens()).isFalse();
        assertThat(listening.isClosed()).as("given back to the pool").isTrue();
        try (Connection returned = pool.getConnection()) {
            assertThat(listeningChannels(returned)).isZero();
        }
        kept.giveBack(first);
    }

    private static String setting(Connection session, String name) throws SQLException {
        try (Statement statement = session.createStatement();
             ResultSet value = statement.executeQuery("SHOW " + name)) {
            value.next();
            return value.getString(1);
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
