package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The coordinator on a real PostgreSQL, judged from the server's side: the sessions in {@code pg_stat_activity} and
 * the locks in {@code pg_locks}. Leases are expired by writing the table, never by waiting for a clock.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class PostgresFleetCoordinatorTests {

    private static final Duration LONG_TTL = Duration.ofMinutes(5);
    private static final Duration LOCK_WAIT = Duration.ofMillis(100);
    private static final Duration RENEWAL_TIMEOUT = Duration.ofMillis(400);

    private final TestDatabase database = PostgresFixture.freshSchema();
    private final HikariDataSource coordinatorPool = database.pool(2);
    private final List<Connection> opened = new ArrayList<>();

    @AfterEach
    void close() throws SQLException {
        for (Connection connection : opened) {
            connection.close();
        }
        coordinatorPool.close();
    }

    @Test
    void aRenewalEndsTheSessionsOfAMemberWhoseLeaseExpiredBeforeItGrantsItsShare() throws SQLException {
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12,
                LOCK_WAIT, RENEWAL_TIMEOUT);
        assertThat(coordinator.renew(new LeaseRequest("paused", 1, 6, 0, LONG_TTL, "paused sessions")).granted())
                .isEqualTo(6);
        List<Connection> pausedSessions = List.of(session("paused sessions"), session("paused sessions"),
                session("paused sessions"));
        assertThat(coordinator.renew(request("survivor", 0, "survivor sessions")).granted()).isEqualTo(6);
        Connection survivorSession = session("survivor sessions");
        assertThat(sessionsNamed("paused sessions")).isEqualTo(3);

        // The paused member stops renewing; its lease runs out on the server's clock.
        database.execute("UPDATE fleet SET lease_expires_at = clock_timestamp() - interval '1 second'"
                + " WHERE member_id = 'paused'");
        Lease lease = coordinator.renew(request("survivor", 6, "survivor sessions"));

        assertThat(lease.fenced()).containsExactly(new Lease.Fenced("paused", 3, 0));
        assertThat(sessionsNamed("paused sessions")).as("gone from the server when the share was granted").isZero();
        assertThat(lease.granted()).isEqualTo(12);
        for (Connection paused : pausedSessions) {
            assertThat(paused.isValid(5)).isFalse();
        }
        assertThat(survivorSession.isValid(5)).as("the renewing member's own sessions are left alone").isTrue();
        assertThat(sessionsNamed("survivor sessions")).isEqualTo(1);
    }

    @Test
    void aMemberFrozenInsideItsRenewalIsCutOffByTheServerAndTheOthersRenewAgain() throws Exception {
        CountDownLatch thaw = new CountDownLatch(1);
        AtomicInteger frozenPid = new AtomicInteger();
        DataSource freezing = freezingAfterTheLock(coordinatorPool, frozenPid, thaw);
        PostgresFleetCoordinator frozenMembers = new PostgresFleetCoordinator(freezing, "fleet", 12, LOCK_WAIT,
                RENEWAL_TIMEOUT);
        PostgresFleetCoordinator others = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12, LOCK_WAIT,
                RENEWAL_TIMEOUT);
        others.renew(request("other", 0, null));

        Thread frozen = Thread.ofPlatform().start(() -> {
            try {
                frozenMembers.renew(request("frozen", 0, null));
            } catch (FleetUnavailableException expected) {
                // Its session was ended by the server while it was frozen.
            }
        });
        Await.until("the frozen renewal holds the fleet's lock", () -> frozenPid.get() != 0
                && holdsTheFleetLock(frozenPid.get()));

        Await.until("the server ended the frozen renewal's session", () -> !sessionOpen(frozenPid.get()));
        Await.until("the others renew again", () -> {
            try {
                return others.renew(request("other", 6, null)).granted() > 0;
            } catch (FleetUnavailableException waitedOnTheLock) {
                return false;
            }
        });
        thaw.countDown();
        frozen.join();
    }

    @Test
    void aTableMadeBeforeMembersNamedTheirSessionsGetsTheColumn() {
        database.execute("CREATE TABLE fleet (member_id text PRIMARY KEY, weight integer NOT NULL,"
                + " demand integer NOT NULL, granted integer NOT NULL, target integer NOT NULL,"
                + " budget integer NOT NULL, joined_at timestamptz NOT NULL, renewed_at timestamptz NOT NULL,"
                + " lease_expires_at timestamptz NOT NULL)");
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12,
                LOCK_WAIT, RENEWAL_TIMEOUT);

        assertThat(coordinator.renew(request("a", 0, "a sessions")).granted()).isEqualTo(12);
        database.execute("SELECT session_name FROM fleet WHERE session_name = 'a sessions'");
    }

    private static LeaseRequest request(String member, int inUse, String sessionName) {
        return new LeaseRequest(member, 1, 12, inUse, LONG_TTL, sessionName);
    }

    private Connection session(String applicationName) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", database.server().username());
        properties.setProperty("password", database.server().password());
        properties.setProperty("ApplicationName", applicationName);
        Connection connection = DriverManager.getConnection(database.server().jdbcUrl(), properties);
        opened.add(connection);
        return connection;
    }

    private int sessionsNamed(String applicationName) {
        return count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", applicationName);
    }

    private boolean sessionOpen(int pid) {
        return count("SELECT count(*) FROM pg_stat_activity WHERE pid = ?", pid) > 0;
    }

    private boolean holdsTheFleetLock(int pid) {
        return count("SELECT count(*) FROM pg_locks WHERE pid = ? AND granted AND mode = 'ExclusiveLock'"
                + " AND relation = '" + database.schema() + ".fleet'::regclass", pid) > 0;
    }

    private int count(String sql, Object parameter) {
        try (Connection side = database.connect(); PreparedStatement query = side.prepareStatement(sql)) {
            query.setObject(1, parameter);
            try (ResultSet result = query.executeQuery()) {
                result.next();
                return result.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Connections that freeze, as a process stopped by SIGSTOP would, right after the fleet's lock is taken: the
     * statement that follows the lock waits for {@code thaw} before it reaches the server.
     */
    private static DataSource freezingAfterTheLock(DataSource pool, AtomicInteger frozenPid, CountDownLatch thaw) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, arguments) -> {
                    Object result = invoke(pool, method, arguments);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    Connection connection = (Connection) result;
                    return Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {Connection.class},
                            (connectionProxy, connectionMethod, connectionArguments) -> {
                                Object made = invoke(connection, connectionMethod, connectionArguments);
                                if (!connectionMethod.getName().equals("createStatement")) {
                                    return made;
                                }
                                Statement statement = (Statement) made;
                                return Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                                        new Class<?>[] {Statement.class}, freezeOnClockRead(statement, connection,
                                                frozenPid, thaw));
                            });
                });
    }

    private static InvocationHandler freezeOnClockRead(Statement statement, Connection connection,
            AtomicInteger frozenPid, CountDownLatch thaw) {
        return (proxy, method, arguments) -> {
            if (method.getName().equals("executeQuery") && String.valueOf(arguments[0]).contains("clock_timestamp")) {
                frozenPid.set(backendPid(connection));
                thaw.await();
            }
            return invoke(statement, method, arguments);
        };
    }

    private static int backendPid(Connection connection) throws SQLException {
        return connection.unwrap(org.postgresql.PGConnection.class).getBackendPID();
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] arguments)
            throws Throwable {
        try {
            return method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
