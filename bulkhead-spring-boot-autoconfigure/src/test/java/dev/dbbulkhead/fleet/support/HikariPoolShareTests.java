package dev.dbbulkhead.fleet.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet share applied to a real HikariCP pool on PostgreSQL, judged by the sessions the server lists. Loops wait
 * for states, never for a time.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class HikariPoolShareTests {

    private final TestDatabase database = PostgresFixture.freshSchema();

    @Test
    void aLowerShareClosesOnlyTheConnectionsAboveItAndKeepsTheRestOpen() {
        try (HikariDataSource pool = pool("shrinking", 4)) {
            HikariPoolShare share = new HikariPoolShare(pool);
            PoolSessions sessions = new PoolSessions(database, "shrinking");
            Await.until("four connections open", () -> share.connectionsInUse() == 4 && sessions.pids().size() == 4);
            Set<Integer> before = sessions.pids();

            share.apply(2);

            Await.until("the excess closed on the server", () -> sessions.pids().size() == 2);
            assertThat(before).as("the two kept are sessions the pool had, not new ones").containsAll(sessions.pids());
            assertThat(pool.getMaximumPoolSize()).isEqualTo(2);
            assertThat(pool.getMinimumIdle()).isEqualTo(2);
            assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isEqualTo(2);
        }
    }

    @Test
    void busyConnectionsAboveALowerShareAreClosedWhenTheyComeBack() throws SQLException {
        try (HikariDataSource pool = pool("draining", 4)) {
            HikariPoolShare share = new HikariPoolShare(pool);
            PoolSessions sessions = new PoolSessions(database, "draining");
            // The pool's count too: a session shows on the server before HikariCP has set it up and taken it in, and
            // one taken in after the share below was applied would stay open until the pool is next asked.
            Await.until("four connections open", () -> share.connectionsInUse() == 4 && sessions.pids().size() == 4);
            List<Connection> busy = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                busy.add(pool.getConnection());
            }

            share.apply(2);
            Await.until("the idle one above the share closed", () -> share.connectionsInUse() == 3);
            busy.remove(0).close();
            assertThat(share.connectionsInUse()).as("the one come back closed when asked").isEqualTo(2);

            Await.until("two left on the server", () -> sessions.pids().size() == 2,
                    () -> "sessions " + sessions.pids() + ", the pool's " + pool.getHikariPoolMXBean()
                            .getTotalConnections() + " (" + pool.getHikariPoolMXBean().getActiveConnections()
                            + " busy), maximum " + pool.getMaximumPoolSize());
            for (Connection stillBusy : busy) {
                assertThat(stillBusy.isValid(5)).as("work under way keeps its connection").isTrue();
                stillBusy.close();
            }
            assertThat(share.connectionsInUse()).isEqualTo(2);
        }
    }

    @Test
    void aHigherShareGrowsThePoolBackToTheSizesItWasConfiguredWith() throws SQLException {
        try (HikariDataSource pool = pool("growing", 4)) {
            HikariPoolShare share = new HikariPoolShare(pool);
            PoolSessions sessions = new PoolSessions(database, "growing");
            share.apply(1);
            // Asked as the member asks at each heartbeat: one still being opened when the share fell is closed then.
            Await.until("one connection left", () -> share.connectionsInUse() == 1 && sessions.pids().size() == 1);

            share.apply(4);

            assertThat(pool.getMaximumPoolSize()).isEqualTo(4);
            assertThat(pool.getMinimumIdle()).isEqualTo(4);
            List<Connection> held = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                held.add(pool.getConnection());
            }
            assertThat(sessions.pids()).hasSize(4);
            for (Connection connection : held) {
                connection.close();
            }
        }
    }

    private HikariDataSource pool(String applicationName, int size) {
        HikariConfig config = database.poolConfig(size, applicationName);
        config.addDataSourceProperty("ApplicationName", applicationName);
        return new HikariDataSource(config);
    }
}
