package dev.dbbulkhead.saturation;

import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The signals of a PostgreSQL database, read by one query that touches no table: its sessions from
 * {@code pg_stat_activity}, its lock waits from {@code pg_locks} ({@code waitstart}, PostgreSQL 14 and later), its
 * counts from {@code pg_stat_database}, its replicas' lag from {@code pg_stat_replication}, the server's next
 * transaction id from its current snapshot ({@code txid_current_snapshot()}, which assigns none), and its sessions in
 * a transaction, between statements too. What other roles' sessions do is visible only to a role with
 * {@code pg_read_all_stats} ({@link SignalAccess}); without it they are not counted.
 */
public final class PostgresSignals implements SignalSource {

    /**
     * Sessions of this database other than this one: those running a statement by wait event type ('' for none), and
     * all in a transaction, between statements too; one scan of {@code pg_stat_activity}.
     */
    private static final String SESSIONS = """
            (SELECT array_agg(coalesce(wait_event_type, '')) FILTER (WHERE active > 0) AS wait_types,
                    array_agg(active) FILTER (WHERE active > 0) AS sessions,
                    coalesce(sum(open), 0)::int AS in_transaction
               FROM (SELECT wait_event_type, count(*) FILTER (WHERE state = 'active') AS active, count(*) AS open
                       FROM pg_stat_activity
                      WHERE datname = current_database() AND pid <> pg_backend_pid()
                        AND (state = 'active' OR xact_start IS NOT NULL)
                      GROUP BY wait_event_type) by_wait) active""";
    private static final String LOCK_WAITS = """
            (SELECT extract(epoch FROM clock_timestamp() - min(waitstart)) AS oldest_lock_wait FROM pg_locks
              WHERE NOT granted AND pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database()))
            lock_waits""";
    private static final String NO_LOCK_WAIT_START = "(SELECT NULL::numeric AS oldest_lock_wait) lock_waits";
    /**
     * The server shows only a query's first kilobyte ({@code track_activity_query_size}) in {@code pg_stat_activity}:
     * {@code pg_stat_database counts} comes first so that an operator, or a test, can tell the sampler's session by it.
     */
    private static final String QUERY = """
            SELECT active.wait_types, active.sessions, lock_waits.oldest_lock_wait,
                   counts.xact_commit, counts.xact_rollback, counts.deadlocks,
                   (SELECT extract(epoch FROM max(replay_lag)) FROM pg_stat_replication) AS replica_lag,
                   txid_snapshot_xmax(txid_current_snapshot()) AS next_transaction_id, active.in_transaction
              FROM pg_stat_database counts, %s, %s
             WHERE counts.datname = current_database()""";
    /** The query for servers whose {@code pg_locks} says when a wait started, and for the others. */
    private static final String QUERY_WITH_WAIT_START = QUERY.formatted(SESSIONS, LOCK_WAITS);
    private static final String QUERY_WITHOUT_WAIT_START = QUERY.formatted(SESSIONS, NO_LOCK_WAIT_START);
    /** The first release whose {@code pg_locks} says when a wait started. */
    private static final int WAIT_START_SINCE = 14;

    private final LongSupplier nanoTime;

    /** Signals stamped with {@link System#nanoTime()}. */
    public PostgresSignals() {
        this(System::nanoTime);
    }

    PostgresSignals(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** The server ends any statement of the session after {@code queryTimeout}, a hung sample included. */
    @Override
    public void prepare(Connection session, Duration queryTimeout) throws SQLException {
        try (Statement statement = session.createStatement()) {
            statement.execute("SET statement_timeout = " + Math.max(1L, queryTimeout.toMillis()));
        }
    }

    @Override
    public DatabaseSignals read(Connection connection) throws SQLException {
        String query = connection.getMetaData().getDatabaseMajorVersion() >= WAIT_START_SINCE ? QUERY_WITH_WAIT_START
                : QUERY_WITHOUT_WAIT_START;
        long sent = nanoTime.getAsLong();
        try (PreparedStatement statement = connection.prepareStatement(query);
             ResultSet row = statement.executeQuery()) {
            if (!row.next()) {
                throw new SQLException("pg_stat_database has no row for the current database");
            }
            Map<WaitClass, Integer> active = activeSessions(row.getArray("wait_types"), row.getArray("sessions"));
            Duration oldestLockWait = seconds(row.getBigDecimal("oldest_lock_wait"));
            long commits = row.getLong("xact_commit");
            long rollbacks = row.getLong("xact_rollback");
            long deadlocks = row.getLong("deadlocks");
            Duration replicaLag = seconds(row.getBigDecimal("replica_lag"));
            long nextTransactionId = row.getLong("next_transaction_id");
            int inTransaction = row.getInt("in_transaction");
            long read = nanoTime.getAsLong();
            return new DatabaseSignals(read, active, oldestLockWait, commits, rollbacks, deadlocks, replicaLag,
                    Duration.ofNanos(read - sent), nextTransactionId, inTransaction);
        }
    }

    /** Sessions by class from the two arrays of one row; none when the arrays are null (no session was active). */
    private static Map<WaitClass, Integer> activeSessions(@Nullable Array waitTypes, @Nullable Array sessions)
            throws SQLException {
        Map<WaitClass, Integer> active = new EnumMap<>(WaitClass.class);
        if (waitTypes == null || sessions == null) {
            return active;
        }
        Object[] types = (Object[]) waitTypes.getArray();
        Object[] counts = (Object[]) sessions.getArray();
        for (int i = 0; i < types.length; i++) {
            active.merge(WaitClass.of((String) types[i]), Math.toIntExact(((Number) counts[i]).longValue()),
                    Integer::sum);
        }
        return active;
    }

    private static @Nullable Duration seconds(@Nullable BigDecimal seconds) {
        return seconds == null ? null : Duration.ofNanos(seconds.movePointRight(9).longValue());
    }
}
