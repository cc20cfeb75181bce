package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    private static final String PAUSED = "app (db-bulkhead member paused)";
    private static final String SURVIVOR = "app (db-bulkhead member survivor)";
    private static final String A_SESSIONS = "(db-bulkhead member a)";
    private static final String FORGED = "app (db-bulkhead member forged)";

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
        assertThat(coordinator.renew(new LeaseRequest("paused", 1, 6, 0, LONG_TTL, PAUSED)).granted())
                .isEqualTo(6);
        List<Connection> pausedSessions = List.of(session(PAUSED), session(PAUSED),
                session(PAUSED));
        assertThat(coordinator.renew(request("survivor", 0, SURVIVOR)).granted()).isEqualTo(6);
        Connection survivorSession = session(SURVIVOR);
        assertThat(sessionsNamed(PAUSED)).isEqualTo(3);

        // The paused member stops renewing; its lease runs out on the server's clock.
        database.execute("UPDATE fleet SET lease_expires_at = clock_timestamp() - interval '1 second'"
                + " WHERE member_id = 'paused'");
        Lease lease = coordinator.renew(request("survivor", 6, SURVIVOR));

        assertThat(lease.fenced()).containsExactly(new Lease.Fenced("paused", 3, 0, 0));
        assertThat(sessionsNamed(PAUSED)).as("gone from the server when the share was granted").isZero();
        assertThat(lease.granted()).isEqualTo(12);
        for (Connection paused : pausedSessions) {
            assertThat(paused.isValid(5)).isFalse();
        }
        assertThat(survivorSession.isValid(5)).as("the renewing member's own sessions are left alone").isTrue();
        assertThat(sessionsNamed(SURVIVOR)).isEqualTo(1);
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
    void aRenewalOfAnUnchangedFleetTakesNoLockOnTheTableYetExtendsTheLease() throws SQLException {
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12,
                LOCK_WAIT, RENEWAL_TIMEOUT);
        assertThat(coordinator.renew(request("a", 0, null)).granted()).isEqualTo(12);
        String expiresBefore = leaseExpiry("a");
        // Another writer of the table, inside its transaction: a settlement would wait for it and give up.
        Connection writer = writerHoldingTheTable();

        Lease kept = coordinator.renew(request("a", 12, null));

        assertThat(kept.granted()).isEqualTo(12);
        assertThat(kept.target()).isEqualTo(12);
        assertThat(kept.members()).extracting(FleetMemberState::memberId).containsExactly("a");
        assertThat(leaseExpiry("a")).as("extended on the server's clock").isGreaterThan(expiresBefore);
        assertThatThrownBy(() -> coordinator.renew(request("b", 0, null)))
                .as("a join changes the fleet: it settles under the fleet's lock")
                .isInstanceOf(FleetUnavailableException.class)
                .hasMessageContaining("lock timeout");
        writer.rollback();
    }

    @Test
    void aJoinIsSettledByEveryMembersNextRenewalAndThenKeptAlive() throws SQLException {
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12,
                LOCK_WAIT, RENEWAL_TIMEOUT);
        coordinator.renew(request("a", 0, null));
        coordinator.renew(request("a", 12, null));
        assertThat(coordinator.renew(request("b", 0, null)).granted()).as("nothing free yet").isZero();

        Lease shrinking = coordinator.renew(request("a", 12, null));
        assertThat(shrinking.target()).as("the join was seen").isEqualTo(6);
        assertThat(shrinking.granted()).as("kept while in use").isEqualTo(12);
        assertThat(coordinator.renew(request("a", 6, null)).granted()).isEqualTo(6);
        assertThat(coordinator.renew(request("b", 0, null)).granted()).isEqualTo(6);

        Connection writer = writerHoldingTheTable();
        assertThat(coordinator.renew(request("a", 6, null)).granted()).isEqualTo(6);
        Lease b = coordinator.renew(request("b", 6, null));
        assertThat(b.granted()).isEqualTo(6);
        assertThat(b.members()).extracting(FleetMemberState::memberId).containsExactly("a", "b");
        writer.rollback();
    }

    @Test
    void aTableMadeBeforeMembersNamedTheirSessionsGetsTheColumn() {
        database.execute("CREATE TABLE fleet (member_id text PRIMARY KEY, weight integer NOT NULL,"
                + " demand integer NOT NULL, granted integer NOT NULL, target integer NOT NULL,"
                + " budget integer NOT NULL, joined_at timestamptz NOT NULL, renewed_at timestamptz NOT NULL,"
                + " lease_expires_at timestamptz NOT NULL)");
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12,
                LOCK_WAIT, RENEWAL_TIMEOUT);

        assertThat(coordinator.renew(request("a", 0, A_SESSIONS)).granted()).isEqualTo(12);
        database.execute("SELECT session_name FROM fleet WHERE session_name = '" + A_SESSIONS + "'");
    }

    @Test
    void expiredRowsNamingSessionsThatAreNotAnotherMembersOfThisDatabaseEndNone() throws SQLException {
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12,
                LOCK_WAIT, RENEWAL_TIMEOUT);
        coordinator.renew(request("survivor", 0, SURVIVOR));
        String otherDatabase = database.schema() + "_other";
        database.execute("CREATE DATABASE " + otherDatabase);
        try {
            List<Connection> bystanders = List.of(session("billing-service"), session(""), session(SURVIVOR),
                    session(FORGED, otherDatabase, database.server().username(), database.server().password()));
            insertRow("billing", 12, 0, "clock_timestamp() - interval '1 second'", "billing-service");
            insertRow("unnamed", 12, 0, "clock_timestamp() - interval '1 second'", "");
            insertRow("own-pool", 12, 0, "clock_timestamp() - interval '1 second'", SURVIVOR);
            insertRow("elsewhere", 12, 0, "clock_timestamp() - interval '1 second'", FORGED);

            Lease lease = coordinator.renew(request("survivor", 0, SURVIVOR));

            for (Connection bystander : bystanders) {
                assertThat(bystander.isValid(5)).as("a session no row of this fleet may end").isTrue();
            }
            assertThat(lease.fenced()).isEmpty();
            assertThat(lease.ignored()).extracting(Lease.Ignored::memberId)
                    .containsExactlyInAnyOrder("billing", "unnamed", "own-pool");
            assertThat(lease.ignored()).filteredOn(row -> row.memberId().equals("own-pool"))
                    .extracting(Lease.Ignored::reason).containsExactly("its session name '" + SURVIVOR
                            + "' is a live member's");
            assertThat(lease.granted()).as("ignored rows hold no share").isEqualTo(12);
        } finally {
            for (Connection connection : opened) {
                connection.close();
            }
            opened.clear();
            database.execute("DROP DATABASE " + otherDatabase + " WITH (FORCE)");
        }
    }

    @Test
    void anExpiredMembersSessionsOfAnotherRoleAreLeftOpenAndCounted() throws SQLException {
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12,
                LOCK_WAIT, RENEWAL_TIMEOUT);
        coordinator.renew(request("survivor", 0, SURVIVOR));
        String role = database.schema() + "_other_role";
        database.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'other'");
        try {
            Connection otherRoles = session(PAUSED, null, role, "other");
            Connection ours = session(PAUSED);
            insertRow("paused", 12, 6, "clock_timestamp() - interval '1 second'", PAUSED);

            Lease lease = coordinator.renew(request("survivor", 0, SURVIVOR));

            assertThat(lease.fenced()).containsExactly(new Lease.Fenced("paused", 1, 1, 0));
            assertThat(otherRoles.isValid(5)).as("another role's session").isTrue();
            assertThat(ours.isValid(5)).as("the coordinator's role's session").isFalse();
        } finally {
            for (Connection connection : opened) {
                connection.close();
            }
            opened.clear();
            database.execute("DROP ROLE " + role);
        }
    }

    @Test
    void aRowWithAnotherBudgetOrAFarExpiryDoesNotShrinkTheFleet() {
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(coordinatorPool, "fleet", 8,
                LOCK_WAIT, RENEWAL_TIMEOUT);
        coordinator.renew(new LeaseRequest("a", 1, 8, 0, LONG_TTL, A_SESSIONS));
        insertRow("budget-of-one", 1, 1, "clock_timestamp() + interval '100 years'", FORGED);
        insertRow("far", 8, 0, "clock_timestamp() + interval '100 years'", FORGED);

        Lease lease = coordinator.renew(new LeaseRequest("a", 1, 8, 8, LONG_TTL, A_SESSIONS));

        assertThat(lease.budget()).isEqualTo(8);
        assertThat(lease.granted()).isEqualTo(8);
        assertThat(lease.target()).isEqualTo(8);
        assertThat(lease.members()).extracting(FleetMemberState::memberId).containsExactly("a");
        assertThat(lease.ignored()).extracting(Lease.Ignored::memberId)
                .containsExactlyInAnyOrder("budget-of-one", "far");
        assertThat(lease.ignored()).filteredOn(row -> row.memberId().equals("budget-of-one"))
                .extracting(Lease.Ignored::reason).containsExactly("its budget 1 differs from this member's 8");
        assertThat(lease.ignored()).filteredOn(row -> row.memberId().equals("far")).extracting(Lease.Ignored::reason)
                .singleElement().asString().contains("further ahead than any member's lease ttl");
    }

    @Test
    void anExistingTableOfThatNameWithAnotherShapeIsRefused() {
        database.execute(createTable("fleet") .replace("session_name text)", "session_name text, owner text)"));
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12,
                LOCK_WAIT, RENEWAL_TIMEOUT);

        assertThatThrownBy(() -> coordinator.renew(request("a", 0, A_SESSIONS)))
                .isInstanceOf(FleetUnavailableException.class)
                .hasMessageContaining("table " + database.schema() + ".fleet exists but is not a fleet table")
                .hasMessageContaining("owner=text");
        assertThat(count("SELECT count(*) FROM " + database.schema() + ".fleet WHERE member_id = ?", "a")).isZero();
    }

    @Test
    void anUnqualifiedTableIsResolvedOnceAndALaterConnectionWithAnotherSearchPathKeepsToIt() {
        TestDatabase elsewhere = PostgresFixture.freshSchema();
        elsewhere.execute(createTable("fleet"));
        try (HikariDataSource elsewherePool = elsewhere.pool(1)) {
            AtomicInteger served = new AtomicInteger();
            DataSource firstHereThenElsewhere = (DataSource) Proxy.newProxyInstance(
                    DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                    (proxy, method, arguments) -> invoke(method.getName().equals("getConnection")
                            && served.getAndIncrement() > 0 ? elsewherePool : coordinatorPool, method, arguments));
            PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(firstHereThenElsewhere, "fleet", 12,
                    LOCK_WAIT, RENEWAL_TIMEOUT);
            assertThat(coordinator.renew(request("a", 0, A_SESSIONS)).granted()).isEqualTo(12);

            Lease lease = coordinator.renew(request("b", 0, null));

            assertThat(lease.members()).extracting(FleetMemberState::memberId).containsExactly("a", "b");
            assertThat(lease.granted()).as("a holds the whole budget").isZero();
        }
    }

    @Test
    void aFencedMembersShareStaysWithheldWhileTheServerStillListsItsEndedSessions() throws SQLException {
        PostgresFleetCoordinator notWaiting = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12,
                LOCK_WAIT, RENEWAL_TIMEOUT, Duration.ZERO, null, Duration.ZERO);
        notWaiting.renew(new LeaseRequest("paused", 1, 6, 0, LONG_TTL, PAUSED));
        session(PAUSED);
        session(PAUSED);
        notWaiting.renew(request("survivor", 0, SURVIVOR));
        database.execute("UPDATE fleet SET lease_expires_at = clock_timestamp() - interval '1 second'"
                + " WHERE member_id = 'paused'");

        Lease withheld = notWaiting.renew(request("survivor", 6, SURVIVOR));

        assertThat(withheld.fenced()).containsExactly(new Lease.Fenced("paused", 2, 0, 2));
        assertThat(withheld.fenced().getFirst().shareFreed()).isFalse();
        assertThat(withheld.granted()).as("the paused member's share withheld").isEqualTo(6);
        assertThat(count("SELECT count(*) FROM fleet WHERE member_id = ?", "paused")).isEqualTo(1);

        Lease freed = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12, LOCK_WAIT, RENEWAL_TIMEOUT)
                .renew(request("survivor", 6, SURVIVOR));
        assertThat(sessionsNamed(PAUSED)).isZero();
        assertThat(freed.granted()).isEqualTo(12);
    }

    private void insertRow(String member, int budget, int granted, String expires, String sessionName) {
        database.execute("INSERT INTO fleet (member_id, weight, demand, granted, target, budget, joined_at,"
                + " renewed_at, lease_expires_at, session_name) VALUES ('" + member + "', 1, " + Math.max(1, granted)
                + ", " + granted + ", " + granted + ", " + budget + ", clock_timestamp(), clock_timestamp(), "
                + expires + ", '" + sessionName + "')");
    }

    private Connection writerHoldingTheTable() throws SQLException {
        return LeaseTableLocks.writerHolding(database, "fleet", opened);
    }

    private String leaseExpiry(String member) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT to_char(lease_expires_at AT TIME ZONE 'UTC',"
                     + " 'YYYY-MM-DD HH24:MI:SS.US') FROM fleet WHERE member_id = '" + member + "'")) {
            row.next();
            return row.getString(1);
        }
    }

    private static String createTable(String name) {
        return new PostgresFleetCoordinator(new org.postgresql.ds.PGSimpleDataSource(), name, 1)
                .createTableStatement();
    }

    private static LeaseRequest request(String member, int inUse, String sessionName) {
        return new LeaseRequest(member, 1, 12, inUse, LONG_TTL, sessionName);
    }

    private Connection session(String applicationName) throws SQLException {
        return session(applicationName, null, database.server().username(), database.server().password());
    }

    /** A session on {@code databaseName}, or the test's database when null, as {@code user}. */
    private Connection session(String applicationName, String databaseName, String user, String password)
            throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("ApplicationName", applicationName);
        // The user and password come from the properties, never from the URL's parameters.
        String url = database.server().jdbcUrl().replaceFirst("\\?.*$", "");
        if (databaseName != null) {
            url = url.replaceFirst("^(jdbc:postgresql://[^/]+/)[^?]*", "$1" + databaseName);
        }
        Connection connection = DriverManager.getConnection(url, properties);
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
