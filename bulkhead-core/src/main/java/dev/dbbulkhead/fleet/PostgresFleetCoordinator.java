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
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
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
 * lease ttl).
 *
 * <p>The table is a trust boundary: whoever may write it could otherwise steer the fleet. A renewal takes a row for
 * a member of this fleet only if it agrees with the renewing member's configuration — the same budget, weight,
 * demand and grant in range, a lease that expires no further ahead than any member's lease ttl can, and a session
 * name of the {@linkplain FleetSettings#isMemberSessionName member form}. Any other row is neither counted, nor
 * fenced, nor deleted: it is returned in {@link Lease#ignored()} for the member to report. Fencing ends only
 * sessions of that name in this database and of the coordinator's own role, and never the sessions named by an
 * unexpired row or by the renewing member.
 *
 * <p>The table is created on first use, in the schema given with its name, else in the coordinator session's
 * {@code current_schema()}, which is resolved once and used by every statement from then on: a table of that name
 * elsewhere on the search path is never adopted. An existing table of another shape is refused.
 */
public final class PostgresFleetCoordinator implements FleetCoordinator {

    /**
     * Default table, in the coordinator session's current schema ({@code current_schema()}, the schema its tables
     * are created in), resolved at first use.
     */
    public static final String DEFAULT_TABLE = "db_bulkhead_fleet";

    private static final Pattern TABLE_NAME =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    /** Default lock wait of a renewal: half the default heartbeat ({@link FleetSettings#renewalLockWait()}). */
    public static final Duration DEFAULT_RENEWAL_LOCK_WAIT = Duration.ofMillis(500);
    /** Default renewal timeout: a quarter of the default lease ttl ({@link FleetSettings#renewalTimeout()}). */
    public static final Duration DEFAULT_RENEWAL_TIMEOUT = Duration.ofMillis(1250);

    /** Creating the table waits for the fleet's lock like a renewal, but may then take its time. */
    private static final Duration DDL_TIMEOUT = Duration.ofSeconds(30);

    /** The columns of the table and their types, as {@code format_type} names them. */
    private static final Map<String, String> COLUMNS = columns();

    private final DataSource connections;
    private final String table;
    /** The table's schema-qualified name, resolved at first use; every statement uses it. */
    private volatile @Nullable String qualifiedTable;
    private final int budget;
    private final Duration lockWait;
    private final Duration renewalTimeout;
    /** How long a renewal waits for the ended sessions of an expired member to be gone: a quarter of its timeout. */
    private final Duration fenceWait;

    /** A coordinator with the default {@linkplain #DEFAULT_RENEWAL_LOCK_WAIT lock wait} and
     * {@linkplain #DEFAULT_RENEWAL_TIMEOUT renewal timeout}. */
    public PostgresFleetCoordinator(DataSource connections, String table, int budget) {
        this(connections, table, budget, DEFAULT_RENEWAL_LOCK_WAIT, DEFAULT_RENEWAL_TIMEOUT);
    }

    /**
     * @param connections    where the table lives; best a small pool of its own, so that a renewal never waits
     *                       behind the application's work for a connection
     * @param table          the table, optionally schema-qualified ({@code schema.table}); plain identifiers only.
     *                       Unqualified, it is qualified with the session's {@code current_schema()} at first use
     * @param budget         the connections the fleet may use; members must all give the same: a row written with
     *                       another budget is ignored (reported in {@link Lease#ignored()}), never lowers this one
     * @param lockWait       the longest a renewal waits for the fleet's lock, well inside the heartbeat (as
     *                       {@link FleetSettings#renewalLockWait()})
     * @param renewalTimeout how long one renewal may take on the server, and the server waits for its member between
     *                       two statements, well inside the lease ttl (as {@link FleetSettings#renewalTimeout()}): a
     *                       member frozen inside its renewal holds the fleet's lock no longer; at least
     *                       {@code lockWait}
     */
    public PostgresFleetCoordinator(DataSource connections, String table, int budget, Duration lockWait,
                                    Duration renewalTimeout) {
        this(connections, table, budget, lockWait, renewalTimeout,
                Objects.requireNonNull(renewalTimeout, "renewalTimeout").dividedBy(4));
    }

    /** As the public constructor, with the wait for ended sessions to be gone given: tests make it zero. */
    PostgresFleetCoordinator(DataSource connections, String table, int budget, Duration lockWait,
                             Duration renewalTimeout, Duration fenceWait) {
        Objects.requireNonNull(lockWait, "lockWait");
        Objects.requireNonNull(renewalTimeout, "renewalTimeout");
        if (lockWait.toMillis() < 1 || renewalTimeout.compareTo(lockWait) < 0) {
            throw new IllegalArgumentException("lock wait must be at least 1ms and the renewal timeout at least the"
                    + " lock wait, were " + lockWait + " and " + renewalTimeout);
        }
        this.lockWait = lockWait;
        this.renewalTimeout = renewalTimeout;
        this.fenceWait = Objects.requireNonNull(fenceWait, "fenceWait");
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

    /** The DDL of the table, for users who create it themselves: qualify the name with its schema there. */
    public String createTableStatement() {
        return createTableStatement(table);
    }

    private static String createTableStatement(String name) {
        return "CREATE TABLE IF NOT EXISTS " + name + " ("
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

    private static Map<String, String> columns() {
        Map<String, String> columns = new LinkedHashMap<>();
        for (String name : List.of("member_id", "session_name")) {
            columns.put(name, "text");
        }
        for (String name : List.of("weight", "demand", "granted", "target", "budget")) {
            columns.put(name, "integer");
        }
        for (String name : List.of("joined_at", "renewed_at", "lease_expires_at")) {
            columns.put(name, "timestamp with time zone");
        }
        return Map.copyOf(columns);
    }

    @Override
    public Lease renew(LeaseRequest request) {
        try (Connection connection = connections.getConnection()) {
            String name = ensureTable(connection);
            return inTransaction(connection, lockWait, renewalTimeout,
                    () -> settle(connection, name, request));
        } catch (SQLException e) {
            throw new FleetUnavailableException("Could not renew the lease of fleet member '" + request.memberId()
                    + "' in table " + tableName() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void leave(String memberId) {
        String name = qualifiedTable;
        if (name == null) {
            // Never renewed through this coordinator: it wrote no lease to end.
            return;
        }
        try (Connection connection = connections.getConnection();
             PreparedStatement delete = connection.prepareStatement(
                     "DELETE FROM " + name + " WHERE member_id = ?")) {
            connection.setAutoCommit(true);
            delete.setString(1, memberId);
            delete.executeUpdate();
        } catch (SQLException e) {
            throw new FleetUnavailableException("Could not end the lease of fleet member '" + memberId
                    + "' in table " + name + "; it ends when it expires: " + e.getMessage(), e);
        }
    }

    /** The table's name, as configured. */
    public String table() {
        return table;
    }

    /** The table's name as every statement uses it: schema-qualified once resolved, as configured before. */
    private String tableName() {
        String name = qualifiedTable;
        return name == null ? table : name;
    }

    private Lease settle(Connection connection, String table, LeaseRequest request) throws SQLException {
        OffsetDateTime now;
        try (Statement statement = connection.createStatement()) {
            statement.execute("LOCK TABLE " + table + " IN EXCLUSIVE MODE");
            try (ResultSet clock = statement.executeQuery("SELECT clock_timestamp()")) {
                clock.next();
                now = clock.getObject(1, OffsetDateTime.class);
            }
        }
        List<Row> live = new ArrayList<>();
        List<Row> expired = new ArrayList<>();
        List<Lease.Ignored> ignored = new ArrayList<>();
        for (Row row : rows(connection, table)) {
            String disagreement = disagreement(row, now);
            if (disagreement != null) {
                ignored.add(new Lease.Ignored(row.memberId(), disagreement));
            } else if (row.expiresAt().isAfter(now)) {
                live.add(row);
            } else {
                expired.add(row);
            }
        }
        // The sessions of a live member, or of the renewing one, are never ended on the word of another row.
        Set<String> liveSessionNames = new HashSet<>();
        if (request.sessionName() != null) {
            liveSessionNames.add(request.sessionName());
        }
        live.forEach(row -> {
            if (row.sessionName() != null) {
                liveSessionNames.add(row.sessionName());
            }
        });
        List<Lease.Fenced> fenced = new ArrayList<>();
        int reserved = 0;
        for (Row row : expired) {
            boolean own = row.memberId().equals(request.memberId());
            if (!own && row.sessionName() != null && liveSessionNames.contains(row.sessionName())) {
                ignored.add(new Lease.Ignored(row.memberId(), "its session name '" + row.sessionName()
                        + "' is a live member's"));
            } else if (!fence(connection, table, row, fenced)) {
                reserved += row.granted();
            }
        }
        int ownGranted = 0;
        List<ShareSettlement.Holder> others = new ArrayList<>();
        for (Row row : live) {
            if (row.memberId().equals(request.memberId())) {
                ownGranted = row.granted();
            } else {
                others.add(new ShareSettlement.Holder(row.memberId(), row.weight(), row.demand(), row.granted()));
            }
        }
        ShareSettlement.Settled settled = ShareSettlement.settle(budget, others, request, ownGranted, reserved);
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
        return new Lease(settled.granted(), settled.target(), budget, members, fenced, ignored);
    }

    /**
     * Why {@code row} is not taken for a member of this fleet; null when it is. A member writes its rows with the
     * budget it was configured with, a weight and demand of at least 1, a grant within both, a lease no longer than
     * {@link FleetSettings#MAX_LEASE_TTL} and a session name of the member form or none.
     */
    private @Nullable String disagreement(Row row, OffsetDateTime now) {
        if (row.budget() != budget) {
            return "its budget " + row.budget() + " differs from this member's " + budget;
        }
        if (row.weight() < 1 || row.demand() < 1 || row.granted() < 0 || row.target() < 0
                || row.granted() > Math.min(row.demand(), budget) || row.target() > row.demand()) {
            return "its weight " + row.weight() + ", demand " + row.demand() + ", grant " + row.granted()
                    + " or target " + row.target() + " is out of range (weight and demand at least 1, grant and"
                    + " target from 0 to the demand, grant at most the budget " + budget + ")";
        }
        if (row.expiresAt().isAfter(now.plus(FleetSettings.MAX_LEASE_TTL))) {
            return "its lease expires at " + row.expiresAt() + ", further ahead than any member's lease ttl"
                    + " (at most " + FleetSettings.MAX_LEASE_TTL + ")";
        }
        if (row.sessionName() != null && !FleetSettings.isMemberSessionName(row.sessionName())) {
            return "its session name '" + row.sessionName() + "' is not of the member form '[<application> ]"
                    + "(db-bulkhead member <tag>)'";
        }
        return null;
    }

    /**
     * Ends the sessions of a member whose lease expired, then drops its row: from then on its share is free.
     *
     * @return false when some of its sessions are still listed by the server once the wait is over: its row stays,
     *         and its grant is held back from everyone until a later renewal finds them gone
     */
    private boolean fence(Connection connection, String table, Row expired, List<Lease.Fenced> fenced)
            throws SQLException {
        String sessionName = expired.sessionName();
        if (sessionName != null) {
            SessionFence.Outcome outcome = SessionFence.end(connection, sessionName, fenceWait);
            if (outcome.ended() + outcome.unending() > 0) {
                fenced.add(new Lease.Fenced(expired.memberId(), outcome.ended(), outcome.unending(),
                        outcome.stillOpen()));
            }
            if (outcome.stillOpen() > 0) {
                return false;
            }
        }
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM " + table + " WHERE member_id = ?")) {
            delete.setString(1, expired.memberId());
            delete.executeUpdate();
        }
        return true;
    }

    private List<Row> rows(Connection connection, String table) throws SQLException {
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

    /**
     * Creates the table if it is missing and checks its shape, once.
     *
     * @return its schema-qualified name
     */
    private String ensureTable(Connection connection) throws SQLException {
        String ready = qualifiedTable;
        if (ready != null) {
            return ready;
        }
        String name = inTransaction(connection, lockWait, DDL_TIMEOUT, () -> {
            String qualified = qualify(connection);
            try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))");
                 Statement create = connection.createStatement()) {
                // Two members starting together would otherwise race on the catalog and one would fail.
                lock.setString(1, qualified);
                lock.executeQuery().close();
                create.execute(createTableStatement(qualified));
                Map<String, String> found = columnsOf(connection, qualified);
                if (!found.containsKey("session_name") && found.size() == COLUMNS.size() - 1) {
                    // A table made before members named their sessions: without the column nobody can be fenced.
                    create.execute("ALTER TABLE " + qualified + " ADD COLUMN IF NOT EXISTS session_name text");
                    found = columnsOf(connection, qualified);
                }
                if (!found.equals(COLUMNS)) {
                    throw new SQLException("table " + qualified + " exists but is not a fleet table: its columns are "
                            + new TreeMap<>(found) + ", a fleet table's are exactly " + new TreeMap<>(COLUMNS)
                            + "; drop or rename it, or give the fleet a table of its own");
                }
            }
            return qualified;
        });
        qualifiedTable = name;
        return name;
    }

    /**
     * The configured name if qualified, else qualified with the schema this session creates tables in: every
     * statement then names that table and no other of the same name on the search path.
     */
    private String qualify(Connection connection) throws SQLException {
        if (table.contains(".")) {
            return table;
        }
        try (Statement statement = connection.createStatement();
             ResultSet schema = statement.executeQuery("SELECT quote_ident(current_schema())")) {
            schema.next();
            String current = schema.getString(1);
            if (current == null) {
                throw new SQLException("table " + table + " is not schema-qualified and the session has no current"
                        + " schema (no schema of its search_path exists): qualify it as schema.table");
            }
            return current + "." + table;
        }
    }

    /** The columns of {@code qualified} and their types; refuses a relation that is not a plain table. */
    private static Map<String, String> columnsOf(Connection connection, String qualified) throws SQLException {
        Map<String, String> columns = new HashMap<>();
        try (PreparedStatement query = connection.prepareStatement("SELECT c.relkind::text, a.attname::text,"
                + " format_type(a.atttypid, a.atttypmod) FROM pg_class c LEFT JOIN pg_attribute a"
                + " ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped WHERE c.oid = ?::regclass")) {
            query.setString(1, qualified);
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    String kind = result.getString(1);
                    if (!kind.equals("r") && !kind.equals("p")) {
                        throw new SQLException(qualified + " exists but is not a table (relkind '" + kind + "'):"
                                + " give the fleet a table of its own");
                    }
                    if (result.getString(2) != null) {
                        columns.put(result.getString(2), result.getString(3));
                    }
                }
            }
        }
        return columns;
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
