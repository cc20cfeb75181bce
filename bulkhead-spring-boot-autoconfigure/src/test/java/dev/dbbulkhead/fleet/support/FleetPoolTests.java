package dev.dbbulkhead.fleet.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The coordinated pool prepared before it starts, judged by the sessions the server lists. */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class FleetPoolTests {

    private final TestDatabase database = PostgresFixture.freshSchema();

    @Test
    void aPoolPreparedBeforeItStartsOpensItsFloorNotItsMinimumIdleNamesItsSessionsAfterTheMemberAndGrowsWhenGranted()
            throws SQLException {
        try (HikariDataSource pool = unstarted(10)) {
            pool.addDataSourceProperty("ApplicationName", "orders-service");
            FleetPool fleetPool = FleetPool.prepare(pool, 2, "1a2b3c4d");
            String name = Objects.requireNonNull(fleetPool.sessionNames()).member();
            PoolSessions sessions = new PoolSessions(database, name);

            pool.getConnection().close();

            assertThat(name).isEqualTo("orders-service (db-bulkhead member 1a2b3c4d)");
            Await.until("the pool filled to its floor", () -> sessions.pids().size() == 2);
            assertThat(pool.getMaximumPoolSize()).isEqualTo(2);
            assertThat(fleetPool.configuredMaximum()).isEqualTo(10);
            fleetPool.openConnectionsWithin(() -> 10);
            fleetPool.share().apply(10);
            List<Connection> held = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                held.add(pool.getConnection());
            }
            assertThat(sessions.pids()).as("grown to its configured size once granted").hasSize(10);
            for (Connection connection : held) {
                connection.close();
            }
        }
    }

    @Test
    void aPoolOpensNoConnectionBeyondWhatTheMemberAllowsWhateverItsMaximumSays() throws SQLException {
        try (HikariDataSource pool = unstarted(3)) {
            pool.setMinimumIdle(0);
            FleetPool fleetPool = FleetPool.prepare(pool, 1, "5e6f7a8b");
            fleetPool.openConnectionsWithin(() -> 1);
            // A member resumed past its lease: the pool's maximum still says its old share.
            pool.setMaximumPoolSize(3);

            try (Connection held = pool.getConnection()) {
                assertThatExceptionOfType(SQLException.class).isThrownBy(pool::getConnection);
                assertThat(held.isValid(5)).isTrue();
            }
            assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isEqualTo(1);
        }
    }

    @Test
    void aPoolThatHadStartedIsTakenAsItStands() throws SQLException {
        try (HikariDataSource pool = unstarted(4)) {
            pool.getConnection().close();

            FleetPool fleetPool = FleetPool.prepare(pool, 1, "9c0d1e2f");

            assertThat(fleetPool.preparedBeforeStart()).isFalse();
            assertThat(fleetPool.sessionNames()).isNull();
            assertThat(pool.getMaximumPoolSize()).isEqualTo(4);
        }
    }

    @Test
    void theCoordinatorsSessionIsNamedApartFromTheMembersPool() throws SQLException {
        try (HikariDataSource pool = unstarted(2)) {
            FleetPool fleetPool = FleetPool.prepare(pool, 1, "3a4b5c6d");
            SessionNames names = Objects.requireNonNull(fleetPool.sessionNames());
            try (FleetConnections coordinator = new FleetConnections(pool, names.coordinator(),
                    java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(5))) {
                coordinator.dataSource().getConnection().close();
                pool.getConnection().close();

                Await.until("both named on the server", () -> new PoolSessions(database, names.coordinator()).pids()
                        .size() == 1 && new PoolSessions(database, names.member()).pids().size() == 1);
                try (Connection coordinatorSession = coordinator.dataSource().getConnection()) {
                    assertThat(FencingReadiness.check(fleetPool)).isEmpty();
                }
            }
        }
    }

    @Test
    void withoutTheCoordinatorsSessionOnTheServerTheCheckSaysItCouldNotTell() throws SQLException {
        try (HikariDataSource pool = unstarted(2)) {
            FleetPool fleetPool = FleetPool.prepare(pool, 1, "5e6f7a8b");
            assertThat(FencingReadiness.check(fleetPool)).get().asString()
                    .contains("could not check that the coordinator may end this member's sessions")
                    .contains("no session named '" + Objects.requireNonNull(fleetPool.sessionNames()).coordinator());
        }
    }

    @Test
    void aCoordinatorOfAnotherRoleThanThePoolsSessionsIsReportedAsUnableToFenceThem() throws SQLException {
        String role = database.schema() + "_coordinator";
        database.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'other'");
        try (HikariDataSource pool = unstarted(2)) {
            FleetPool fleetPool = FleetPool.prepare(pool, 1, "7b8c9d0e");
            HikariDataSource asAnotherRole = new HikariDataSource();
            database.poolConfig(1, "fleet-coordinator-other-role").copyStateTo(asAnotherRole);
            asAnotherRole.setJdbcUrl(database.server().jdbcUrl().replaceFirst("\\?.*$", ""));
            asAnotherRole.setUsername(role);
            asAnotherRole.setPassword("other");
            asAnotherRole.setSchema(null);
            asAnotherRole.addDataSourceProperty("ApplicationName",
                    Objects.requireNonNull(fleetPool.sessionNames()).coordinator());
            try (asAnotherRole; Connection coordinatorSession = asAnotherRole.getConnection()) {
                assertThat(FencingReadiness.check(fleetPool)).get().asString()
                        .contains("the pool's sessions run as role '" + database.server().username() + "'")
                        .contains("coordinator's as role '" + role + "'")
                        .contains("every member must connect as the same role to the same database");
            }
        } finally {
            database.execute("DROP ROLE " + role);
        }
    }

    private HikariDataSource unstarted(int size) {
        HikariDataSource pool = new HikariDataSource();
        database.poolConfig(size, "fleet-pool-" + size).copyStateTo(pool);
        return pool;
    }
}
