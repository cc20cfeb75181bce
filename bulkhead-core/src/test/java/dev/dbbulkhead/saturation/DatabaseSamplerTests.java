package dev.dbbulkhead.saturation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.Permit;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The sampler on a real PostgreSQL. Sessions are brought into the state a sample should see (waiting for a lock,
 * running on a processor, sleeping) and held there while the sample is taken; only states are asserted, never how long
 * anything took. Other tests may use the same server meanwhile, so counts are asserted as "at least".
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang
class DatabaseSamplerTests {

    private static final Duration LONG_QUERY_TIMEOUT = Duration.ofSeconds(30);

    private final TestDatabase database = PostgresFixture.freshSchema();
    private final RecordingLogger log = new RecordingLogger();
    private final List<String> told = log.lines();
    private final List<Connection> opened = new ArrayList<>();
    private final ExecutorService sessions = Executors.newCachedThreadPool();

    @AfterEach
    void closeEverything() throws SQLException {
        for (Connection connection : opened) {
            connection.close();
        }
        sessions.shutdownNow();
    }

    @Test
    void aSampleCountsTheDatabasesActiveSessionsByWhatTheyWaitForAndTheOldestLockWait() throws Exception {
        createAccounts(1);
        Connection holder = session();
        holder.setAutoCommit(false);
        update(holder);
        Connection lockWaiter = session();
        Connection computing = session();
        Connection sleeping = session();
        Future<?> waits = sessions.submit(() -> update(lockWaiter));
        // A loop on the server's processor that reads and writes nothing, until cancelled.
        Future<?> computes = sessions.submit(() -> run(computing, "DO $$ BEGIN LOOP PERFORM 1; END LOOP; END $$"));
        Future<?> sleeps = sessions.submit(() -> run(sleeping, "SELECT pg_sleep(3600)"));
        awaitSession(lockWaiter, "Lock");
        awaitSession(computing, null);
        awaitSession(sleeping, "Timeout");

        try (DatabaseSampler sampler = sampler(new PostgresSignals(), LONG_QUERY_TIMEOUT)) {
            DatabaseSignals signals = sampleNow(sampler);

            assertThat(signals.active(WaitClass.LOCK)).isGreaterThanOrEqualTo(1);
            assertThat(signals.lockWaiters()).isEqualTo(signals.active(WaitClass.LOCK));
            assertThat(signals.active(WaitClass.CPU)).isGreaterThanOrEqualTo(1);
            assertThat(signals.active(WaitClass.OTHER)).as("pg_sleep waits on a timeout").isGreaterThanOrEqualTo(1);
            assertThat(signals.active()).isGreaterThanOrEqualTo(3);
            assertThat(signals.sessionsInTransaction()).as("the lock's holder waits for its client in mid-transaction")
                    .isGreaterThanOrEqualTo(signals.active() + 1);
            assertThat(signals.inTransaction()).isEqualTo(signals.sessionsInTransaction());
            assertThat(signals.oldestLockWait()).isNotNull().isPositive();
            assertThat(signals.replicaLag()).as("the server has no replica").isNull();
            assertThat(signals.queryTime()).isPositive();
            assertThat(sampler.current()).contains(signals);
        } finally {
            cancel(computing);
            cancel(sleeping);
            holder.rollback();
        }
        waits.get();
        assertThatThrownBy(computes::get).hasRootCauseInstanceOf(SQLException.class);
        assertThatThrownBy(sleeps::get).hasRootCauseInstanceOf(SQLException.class);
    }

    @Test
    void aSteeredLimitLowersBOnTheServersLockContentionThenHoldsItWhileSamplesFailOrHangAndNothingWaitsForThem()
            throws Exception {
        createAccounts(1);
        AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(8).maxQueued(8).build());
        SaturationLimits limits = new SaturationLimits(new SaturationPolicy(SamplerSettings.UNKNOWN_CPUS), List.of(
                new SaturationLimits.Governed("orders", SaturationLimits.Mode.STEER, Criticality.DEFAULT, 1, () -> 8,
                        gate::active, () -> gate.waiting() > 0, gate::resizeConcurrent)), log);
        AtomicReference<String> fault = new AtomicReference<>("none");
        CountDownLatch hung = new CountDownLatch(1);
        CountDownLatch unhang = new CountDownLatch(1);
        SignalSource postgres = new PostgresSignals();
        SignalSource faulty = session -> {
            switch (fault.get()) {
                case "fail" -> throw new SQLException("the sample's query failed");
                case "hang" -> {
                    hung.countDown();
                    try {
                        unhang.await();
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        throw new SQLException("interrupted while hanging", interrupted);
                    }
                }
                default -> {
                }
            }
            return postgres.read(session);
        };
        Connection holder = session();
        holder.setAutoCommit(false);
        update(holder);
        List<Future<?>> waits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Connection waiter = session();
            waits.add(sessions.submit(() -> update(waiter)));
            awaitSession(waiter, "Lock");
        }
        try (DatabaseSampler sampler = sampler(faulty, LONG_QUERY_TIMEOUT);
             Permit running = gate.acquire()) {
            sampler.onEachSample(limits::onSample);

            assertThat(sampler.sampleOnce()).isTrue();
            assertThat(limits.lastReading().orElseThrow().state()).isEqualTo(SaturationPolicy.State.LOCK_CONTENTION);
            assertThat(gate.config().maxConcurrent()).as("lowered from the one operation it runs").isEqualTo(1);
            holder.rollback();
            for (Future<?> wait : waits) {
                wait.get();
            }

            fault.set("fail");
            assertThat(sampler.sampleOnce()).isFalse();
            assertThat(gate.config().maxConcurrent()).as("held while samples fail").isEqualTo(1);

            fault.set("hang");
            Future<Boolean> hanging = sessions.submit(sampler::sampleOnce);
            hung.await();
            running.close();
            try (Permit admitted = gate.acquire()) {
                assertThat(gate.config().maxConcurrent()).as("held while a sample hangs").isEqualTo(1);
                assertThat(admitted.isReleased()).isFalse();
            }
            assertThat(gate.active()).as("admitted and released while the sample hung").isZero();
            unhang.countDown();
            assertThat(hanging.get()).isTrue();
        }
    }

    @Test
    void aListenerThatThrowsIsReportedAndTheOthersStillHearOfTheSample() {
        List<DatabaseSignals> heard = new ArrayList<>();
        try (DatabaseSampler sampler = sampler(new PostgresSignals(), LONG_QUERY_TIMEOUT)) {
            sampler.onEachSample(signals -> {
                throw new IllegalStateException("a listener's bug");
            });
            sampler.onEachSample(heard::add);

            assertThat(sampler.sampleOnce()).as("the sample itself succeeded").isTrue();
            assertThat(heard).containsExactly(sampler.latest().orElseThrow());
            assertThat(told).containsExactly("warning: A listener of the database's signals failed on a sample");
        }
    }

    @Test
    void commitsRollbacksAndDeadlocksAreTheServersCountsOfTheDatabase() throws Exception {
        createAccounts(2);
        try (DatabaseSampler sampler = sampler(new PostgresSignals(), LONG_QUERY_TIMEOUT)) {
            DatabaseSignals before = sampleNow(sampler);
            Connection first = session();
            Connection second = session();
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            for (int i = 0; i < 3; i++) {
                update(first, 1);
                first.commit();
            }
            for (int i = 0; i < 2; i++) {
                update(first, 1);
                first.rollback();
            }
            // A deadlock: each holds the row the other asks for; the server ends one of them.
            update(first, 1);
            update(second, 2);
            Future<?> firstAsksForTheSecondsRow = sessions.submit(() -> update(first, 2));
            awaitSession(first, "Lock");
            Throwable secondsEnd = catchDeadlock(() -> update(second, 1));
            Throwable firstsEnd = catchDeadlock(firstAsksForTheSecondsRow::get);
            assertThat(secondsEnd == null ^ firstsEnd == null).as("exactly one is ended as the deadlock's victim")
                    .isTrue();
            first.rollback();
            second.rollback();
            first.setAutoCommit(true);
            second.setAutoCommit(true);
            flushStatistics(first);
            flushStatistics(second);

            DatabaseSignals after = sampleNow(sampler);

            assertThat(after.commits() - before.commits()).isGreaterThanOrEqualTo(3);
            assertThat(after.rollbacks() - before.rollbacks()).isGreaterThanOrEqualTo(2 + 2);
            assertThat(after.deadlocks() - before.deadlocks()).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void theNextTransactionIdCountsEveryTransactionThatWroteAtOnceAndReadOnlyOnesNot() throws Exception {
        createAccounts(1);
        try (DatabaseSampler sampler = sampler(new PostgresSignals(), LONG_QUERY_TIMEOUT)) {
            DatabaseSignals before = sampleNow(sampler);
            Connection writer = session();
            for (int i = 0; i < 5; i++) {
                // Autocommit: each update its own transaction. No statistics are flushed: none are needed.
                update(writer, 1);
            }
            DatabaseSignals afterWrites = sampleNow(sampler);
            for (int i = 0; i < 5; i++) {
                run(writer, "SELECT balance FROM account WHERE id = 1");
            }
            DatabaseSignals afterReads = sampleNow(sampler);

            assertThat(before.nextTransactionId()).isPositive();
            assertThat(afterWrites.nextTransactionId() - before.nextTransactionId()).isGreaterThanOrEqualTo(5);
            // Neither the reads nor the samples took an id; only another session's write in between could have.
            assertThat(afterReads.nextTransactionId() - afterWrites.nextTransactionId())
                    .isLessThan(afterWrites.nextTransactionId() - before.nextTransactionId());
        }
    }

    @Test
    void readersAndAnotherSampleNeverWaitForASampleThatHangs() throws Exception {
        database.execute("CREATE TABLE gate (id int)");
        Connection locker = session();
        locker.setAutoCommit(false);
        PostgresSignals signals = new PostgresSignals();
        AtomicLong reads = new AtomicLong();
        SignalSource blockedOnTheSecondRead = connection -> {
            if (reads.incrementAndGet() == 2) {
                run(connection, "SELECT count(*) FROM " + database.schema() + ".gate");
            }
            return signals.read(connection);
        };
        try (DatabaseSampler sampler = sampler(blockedOnTheSecondRead, LONG_QUERY_TIMEOUT)) {
            DatabaseSignals first = sampleNow(sampler);
            run(locker, "LOCK TABLE " + database.schema() + ".gate IN ACCESS EXCLUSIVE MODE");
            Future<Boolean> hanging = sessions.submit(sampler::sampleOnce);
            Await.until("the sample waits for the table's lock", () -> lockWaitsOnTheGateTable() > 0);

            assertThat(sampler.latest()).contains(first);
            assertThat(sampler.current()).contains(first);
            assertThat(sampler.sampleOnce()).as("another sample returns at once").isFalse();

            locker.rollback();
            assertThat(hanging.get()).isTrue();
            assertThat(sampler.latest()).get().isNotEqualTo(first);
            assertThat(told).isEmpty();
        }
    }

    @Test
    void aSampleTheServerDoesNotAnswerInTimeFailsTheLastSampleStaysAndTheNextOneIsReadAgain() throws Exception {
        PostgresSignals signals = new PostgresSignals();
        AtomicLong reads = new AtomicLong();
        SignalSource hangingOnTheSecondRead = connection -> {
            if (reads.incrementAndGet() == 2) {
                run(connection, "SELECT pg_sleep(3600)");
            }
            return signals.read(connection);
        };
        try (DatabaseSampler sampler = sampler(hangingOnTheSecondRead, Duration.ofSeconds(1))) {
            DatabaseSignals first = sampleNow(sampler);

            assertThat(sampler.sampleOnce()).as("ended by the server's statement timeout").isFalse();
            assertThat(sampler.latest()).contains(first);
            assertThat(sampler.failuresInARow()).isEqualTo(1);
            assertThat(told).singleElement().asString().startsWith("warning: Could not read the database's signals");

            assertThat(sampler.sampleOnce()).isTrue();
            assertThat(sampler.failuresInARow()).isZero();
            assertThat(told).last().isEqualTo("info: The database's signals are read again, after 1 failed samples");
        }
    }

    @Test
    void aSampleOlderThanThreeIntervalsIsNoLongerCurrentButStaysTheLatest() {
        AtomicLong clock = new AtomicLong();
        SamplerSettings settings = new SamplerSettings(Duration.ofSeconds(1), Duration.ofSeconds(1), 0);
        try (DatabaseSampler sampler = new DatabaseSampler(dataSource(), new PostgresSignals(clock::get), settings,
                log, clock::get)) {
            assertThat(sampler.current()).as("before the first sample").isEmpty();
            assertThat(sampler.sampleOnce()).isTrue();

            clock.set(Duration.ofSeconds(3).toNanos());
            assertThat(sampler.current()).isPresent();
            clock.set(Duration.ofSeconds(3).toNanos() + 1);
            assertThat(sampler.current()).isEmpty();
            assertThat(sampler.latest()).isPresent();
        }
    }

    @Test
    void aClosedSamplerTakesNoSampleAndCannotBeStarted() {
        DatabaseSampler sampler = sampler(new PostgresSignals(), LONG_QUERY_TIMEOUT);
        sampler.close();
        sampler.close();

        assertThat(sampler.sampleOnce()).isFalse();
        assertThatThrownBy(() -> sampler.start(Executors.newSingleThreadScheduledExecutor()))
                .isInstanceOf(IllegalStateException.class).hasMessage("The sampler is closed");
    }

    @Test
    void aSuperuserSeesTheWholeServerAndARoleWithoutStatisticsOnlyItsOwnSessions() throws SQLException {
        String role = "sampler_" + database.schema();
        database.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'sampler'");
        try {
            assertThat(SignalAccess.of(session())).isEqualTo(SignalAccess.WHOLE_SERVER);
            PGSimpleDataSource asRole = dataSource();
            asRole.setUser(role);
            asRole.setPassword("sampler");
            try (Connection connection = asRole.getConnection()) {
                assertThat(SignalAccess.of(connection)).isEqualTo(SignalAccess.OWN_ROLE_ONLY);
            }
        } finally {
            database.execute("DROP ROLE " + role);
        }
    }

    private DatabaseSampler sampler(SignalSource source, Duration queryTimeout) {
        return new DatabaseSampler(dataSource(), source, new SamplerSettings(LONG_QUERY_TIMEOUT, queryTimeout, 0),
                log);
    }

    private PGSimpleDataSource dataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(database.server().jdbcUrl());
        dataSource.setUser(database.server().username());
        dataSource.setPassword(database.server().password());
        return dataSource;
    }

    private Connection session() throws SQLException {
        Connection connection = database.connect();
        opened.add(connection);
        return connection;
    }

    private static Void update(Connection connection) throws SQLException {
        return update(connection, 1);
    }

    private static Void update(Connection connection, int id) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "UPDATE account SET balance = balance + 1 WHERE id = ?")) {
            statement.setInt(1, id);
            statement.executeUpdate();
        }
        return null;
    }

    private static Void run(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
        return null;
    }

    /** The table {@code account} with rows 1 to {@code rows}, each of balance 0. */
    private void createAccounts(int rows) throws SQLException {
        StringBuilder values = new StringBuilder();
        for (int id = 1; id <= rows; id++) {
            values.append(id == 1 ? "" : ", ").append('(').append(id).append(", 0)");
        }
        database.execute("CREATE TABLE account (id int PRIMARY KEY, balance int NOT NULL)",
                "INSERT INTO account VALUES " + values);
    }

    /** Takes a sample now, which must succeed, and returns it. */
    private static DatabaseSignals sampleNow(DatabaseSampler sampler) {
        assertThat(sampler.sampleOnce()).isTrue();
        return sampler.latest().orElseThrow();
    }

    /** Waits until {@code connection}'s session runs a statement and waits for {@code waitType} (null: for nothing). */
    private void awaitSession(Connection connection, @Nullable String waitType) throws SQLException {
        int pid = pid(connection);
        Connection observer = session();
        Await.until("session " + pid + " active, waiting for " + waitType, () -> {
            try (PreparedStatement statement = observer.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                    + " WHERE pid = ? AND state = 'active' AND wait_event_type IS NOT DISTINCT FROM ?")) {
                statement.setInt(1, pid);
                statement.setString(2, waitType);
                try (ResultSet row = statement.executeQuery()) {
                    row.next();
                    return row.getInt(1) == 1;
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static int pid(Connection connection) throws SQLException {
        return connection.unwrap(org.postgresql.PGConnection.class).getBackendPID();
    }

    private int lockWaitsOnTheGateTable() {
        try (Connection observer = database.connect();
             PreparedStatement statement = observer.prepareStatement("SELECT count(*) FROM pg_locks"
                     + " WHERE NOT granted AND relation = ?::regclass")) {
            statement.setString(1, database.schema() + ".gate");
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void cancel(Connection connection) throws SQLException {
        connection.unwrap(org.postgresql.PGConnection.class).cancelQuery();
    }

    /** Makes the server count what {@code connection}'s session did now, rather than within the next second. */
    private static void flushStatistics(Connection connection) throws SQLException {
        run(connection, "SELECT pg_stat_force_next_flush()");
    }

    private static @Nullable Throwable catchDeadlock(ThrowingRunnable action) {
        try {
            action.run();
            return null;
        } catch (Exception failure) {
            Throwable cause = failure;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            assertThat(cause).isInstanceOf(SQLException.class);
            assertThat(((SQLException) cause).getSQLState()).isEqualTo("40P01");
            return cause;
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
