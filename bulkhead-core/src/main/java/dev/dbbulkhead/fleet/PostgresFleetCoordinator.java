package dev.dbbulkhead.fleet;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The fleet's budget kept in a table of the shared PostgreSQL, one row per member, the way a scheduler lock is
 * kept in the database: no infrastructure beyond the database every member already uses.
 *
 * <p>Each renewal is one transaction that locks the table in {@code EXCLUSIVE} mode (plain reads go on; renewals
 * and leaves of all members queue), reads the server's {@code clock_timestamp()} once, fences every member whose
 * lease expired by it — ends its sessions on the server, found by their {@code application_name}
 * ({@link LeaseRequest#sessionName()}), and only once they are gone deletes its row ({@link SessionFence}) — and
 * settles the member's grant ({@link ShareSettlement}) against the rows left, holding back the grants of expired
 * members whose sessions are still open. Leases are judged only on the server's clock, so the members' clocks need
 * not agree. No renewal waits long on another: the lock is waited for at most the lock wait (half a heartbeat), and
 * the server ends a renewal whose member stopped answering inside it after the renewal timeout (a quarter of the
 * lease ttl). The table is created on
 * first use.
 */
public final class PostgresFleetCoordinator implements FleetCoordinator {

    /** Default table, in the connections' default schema. */
    public static final String DEFAULT_TABLE = "db_bulkhead_fleet";

    private static final Pattern TABLE_NAME =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    /** Default lock wait of a renewal: half the default heartbeat ({@link FleetSettings#renewalLockWait()}). */
    public static final Duration DEFAULT_RENEWAL_LOCK_WAIT = Duration.ofMillis(500);
    /** Default renewal timeout: a quarter of the default lease ttl ({@link FleetSettings#renewalTimeout()}). */
    public static final Duration DEFAULT_RENEWAL_TIMEOUT = Duration.ofMillis(1250);

    /** Creating the table waits for the fleet's lock like a renewal, but may then take its time. */
    private static final Duration DDL_TIMEOUT = Duration.ofSeconds(30);

    private final DataSource connections;
    private final String table;
    private final int budget;
    private final Duration lockWait;
    private final Duration renewalTimeout;
    /** How long a renewal waits for the ended sessions of an expired member to be gone: a quarter of its timeout. */
    private final Duration fenceWait;
    private volatile boolean tableReady;

    /** A coordinator with the default {@linkplain #DEFAULT_RENEWAL_LOCK_WAIT lock wait} and
     * {@linkplain #DEFAULT_RENEWAL_TIMEOUT renewal timeout}. */
    public PostgresFleetCoordinator(DataSource connections, String table, int budget) {
        this(connections, table, budget, DEFAULT_RENEWAL_LOCK_WAIT, DEFAULT_RENEWAL_TIMEOUT);
    }

    /**
     * @param connections    where the table lives; best a small pool of its own, so that a renewal never waits
     *                       behind the application's work for a connection
     * @param table          the table, optionally schema-qualified ({@code schema.table}); plain identifiers only
     * @param budget         the connections the fleet may use; members should all give the same, and where they
     *                       differ the smallest of the live members' budgets applies
     * @param lockWait       the longest a renewal waits for the fleet's lock, well inside the heartbeat (as
     *                       {@link FleetSettings#renewalLockWait()})
     * @param renewalTimeout how long one renewal may take on the server, and the server waits for its member between
     *                       two statements, well inside the lease ttl (as {@link FleetSettings#renewalTimeout()}): a
     *                       member frozen inside its renewal holds the fleet's lock no longer; at least
     *                       {@code lockWait}
     */
    public PostgresFleetCoordinator(DataSource connections, String table, int budget, Duration lockWait,
                                    Duration renewalTimeout) {
        Objects.requireNonNull(lockWait, "lockWait");
        Objects.requireNonNull(renewalTimeout, "renewalTimeout");
        if (lockWait.toMillis() < 1 || renewalTimeout.compareTo(lockWait) < 0) {
            throw new IllegalArgumentException("lock wait must be at least 1ms and the renewal timeout at least the"
                    + " lock wait, were " + lockWait + " and " + renewalTimeout);
        }
        this.lockWait = lockWait;
        this.renewalTimeout = renewalTimeout;
        this.fenceWait = renewalTimeout.dividedBy(4);
        this.connections = Objects.requireNonNull(connections, "connections");
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("table must be an unquoted identifier, optionally schema-qualified"
                    + " (schema.table), was '" + table + "'");
        }
        if (budget < 1) {
            throw new IllegalArgumentException("connection budget must be between 1 and " + Integer.MAX_VALUE
                    + ", was " + budget);
        }
        this.table = table;
        this.budget = budget;
    }

    /** The DDL of the table, for users who create it themselves. */
    public String createTableStatement() {
        return "CREATE TABLE IF NOT EXISTS " + table + " ("
                + "member_id text PRIMARY KEY, "
                + "weight integer NOT NULL, "
                + "demand integer NOT NULL, "
                + "granted integer NOT NULL, "
                + "target integer NOT NULL, "
                + "budget integer NOT NULL, "
                + "joined_at timestamptz NOT NULL, "
                + "renewed_at timestamptz NOT NULL, "
                + "lease_expires_at timestamptz NOT NULL, "
                + "session_name text)";
    }

    @Override
    public Lease renew(LeaseRequest request) {
        try (Connection connection = connections.getConnection()) {
            ensureTable(connection);
            return inTransaction(connection, lockWait, renewalTimeout,
                    () -> settle(connection, request));
        } catch (SQLException e) {
            throw new FleetUnavailableException("Could not renew the lease of fleet member '" + request.memberId()
                    + "' in table " + table + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void leave(String memberId) {
        try (Connection connection = connections.getConnection();
             PreparedStatement delete = connection.prepareStatement(
                     "DELETE FROM " + table + " WHERE member_id = ?")) {
            connection.setAutoCommit(true);
            delete.setString(1, memberId);
            delete.executeUpdate();
        } catch (SQLException e) {
            throw new FleetUnavailableException("Could not end the lease of fleet member '" + memberId
                    + "' in table " + table + "; it ends when it expires: " + e.getMessage(), e);
        }
    }

    /** The table's name, as configured. */
    public String table() {
        return table;
    }

    private Lease settle(Connection connection, LeaseRequest request) throws SQLException {
        OffsetDateTime now;
        try (Statement statement = connection.createStatement()) {
            statement.execute("LOCK TABLE " + table + " IN EXCLUSIVE MODE");
            try (ResultSet clock = statement.executeQuery("SELECT clock_timestamp()")) {
                clock.next();
                now = clock.getObject(1, OffsetDateTime.class);
            }
        }
        List<Row> live = new ArrayList<>();
        List<Lease.Fenced> fenced = new ArrayList<>();
        int reserved = 0;
        for (Row row : rows(connection)) {
            if (row.expiresAt().isAfter(now)) {
                live.add(row);
            } else if (!fence(connection, row, fenced)) {
                reserved += row.granted();
            }
        }
        int fleetBudget = budget;
        int ownGranted = 0;
        List<ShareSettlement.Holder> others = new ArrayList<>();
        for (Row row : live) {
            fleetBudget = Math.min(fleetBudget, row.budget());
            if (row.memberId().equals(request.memberId())) {
                ownGranted = row.granted();
            } else {
                others.add(new ShareSettlement.Holder(row.memberId(), row.weight(), row.demand(), row.granted()));
            }
        }
        ShareSettlement.Settled settled = ShareSettlement.settle(fleetBudget, others, request, ownGranted, reserved);
        OffsetDateTime expires = now.plus(request.leaseTtl());
        try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO " + table
                + " (member_id, weight, demand, granted, target, budget, joined_at, renewed_at, lease_expires_at,"
                + " session_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (member_id) DO UPDATE SET"
                + " weight = excluded.weight, demand = excluded.demand, granted = excluded.granted,"
                + " target = excluded.target, budget = excluded.budget, renewed_at = excluded.renewed_at,"
                + " lease_expires_at = excluded.lease_expires_at, session_name = excluded.session_name")) {
            upsert.setString(1, request.memberId());
            upsert.setInt(2, request.weight());
            upsert.setInt(3, request.demand());
            upsert.setInt(4, settled.granted());
            upsert.setInt(5, settled.target());
            upsert.setInt(6, budget);
            upsert.setObject(7, now);
            upsert.setObject(8, now);
            upsert.setObject(9, expires);
            upsert.setString(10, request.sessionName());
            upsert.executeUpdate();
        }
        List<FleetMemberState> members = new ArrayList<>();
        for (Row row : live) {
            if (!row.memberId().equals(request.memberId())) {
                members.add(new FleetMemberState(row.memberId(), row.weight(), row.demand(), row.granted(),
                        row.target(), Duration.between(row.renewedAt(), now), Duration.between(now, row.expiresAt())));
            }
        }
        members.add(new FleetMemberState(request.memberId(), request.weight(), request.demand(), settled.granted(),
                settled.target(), Duration.ZERO, request.leaseTtl()));
        members.sort(Comparator.comparing(FleetMemberState::memberId));
        return new Lease(settled.granted(), settled.target(), fleetBudget, members, fenced);
    }

    /**
     * Ends the sessions of a member whose lease expired, then drops its row: from then on its share is free.
     *
     * @return false when some of its sessions are still open: its row stays, and its grant is held back from everyone
     *         until a later renewal finds them gone
     */
    private boolean fence(Connection connection, Row expired, List<Lease.Fenced> fenced) throws SQLException {
        String sessionName = expired.sessionName();
        if (sessionName != null) {
            SessionFence.Outcome outcome = SessionFence.end(connection, sessionName, fenceWait);
            if (outcome.stillOpen() > 0) {
                return false;
            }
            if (outcome.ended() + outcome.unending() > 0) {
                fenced.add(new Lease.Fenced(expired.memberId(), outcome.ended(), outcome.unending()));
            }
        }
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM " + table + " WHERE member_id = ?")) {
            delete.setString(1, expired.memberId());
            delete.executeUpdate();
        }
        return true;
    }

    private List<Row> rows(Connection connection) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT member_id, weight, demand, granted, target, budget,"
                     + " renewed_at, lease_expires_at, session_name FROM " + table)) {
            while (result.next()) {
                rows.add(new Row(result.getString(1), result.getInt(2), result.getInt(3), result.getInt(4),
                        result.getInt(5), result.getInt(6), result.getObject(7, OffsetDateTime.class),
                        result.getObject(8, OffsetDateTime.class), result.getString(9)));
            }
        }
        return rows;
    }

    private void ensureTable(Connection connection) throws SQLException {
        if (tableReady) {
            return;
        }
        inTransaction(connection, lockWait, DDL_TIMEOUT, () -> {
            try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))");
                 Statement create = connection.createStatement()) {
                // Two members starting together would otherwise race on the catalog and one would fail.
                lock.setString(1, table);
                lock.executeQuery().close();
                create.execute(createTableStatement());
                if (!hasSessionNameColumn(connection)) {
                    // A table made before members named their sessions: without the column nobody can be fenced.
                    create.execute("ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS session_name text");
                }
            }
            return null;
        });
        tableReady = true;
    }

    private boolean hasSessionNameColumn(Connection connection) throws SQLException {
        try (PreparedStatement column = connection.prepareStatement("SELECT 1 FROM pg_attribute"
                + " WHERE attrelid = ?::regclass AND attname = 'session_name' AND NOT attisdropped")) {
            column.setString(1, table);
            try (ResultSet found = column.executeQuery()) {
                return found.next();
            }
        }
    }

    /**
     * Runs {@code work} in one transaction whose lock waits are bounded by {@code lockWait} and whose statements,
     * and the server's wait for this client between them, by {@code bound}: a renewal stuck behind another gives
     * up instead of outliving the lease it renews, and one whose member froze mid-transaction is ended by the
     * server, which lets go of the fleet's lock, instead of holding every other renewal back.
     */
    private static <T extends @Nullable Object> T inTransaction(Connection connection, Duration lockWait,
            Duration bound, SqlStep<T> work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            try (Statement limits = connection.createStatement()) {
                long millis = Math.max(1, bound.toMillis());
                limits.execute("SET LOCAL lock_timeout = " + Math.max(1, lockWait.toMillis()));
                limits.execute("SET LOCAL statement_timeout = " + millis);
                limits.execute("SET LOCAL idle_in_transaction_session_timeout = " + millis);
            }
            T result = work.run();
            connection.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                connection.rollback();
            } catch (SQLException rollback) {
                e.addSuppressed(rollback);
            }
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    @FunctionalInterface
    private interface SqlStep<T extends @Nullable Object> {
        T run() throws SQLException;
    }

    private record Row(String memberId, int weight, int demand, int granted, int target, int budget,
                       OffsetDateTime renewedAt, OffsetDateTime expiresAt, @Nullable String sessionName) {
    }
}
