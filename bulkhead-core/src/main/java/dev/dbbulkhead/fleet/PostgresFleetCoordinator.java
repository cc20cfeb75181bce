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
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
 * <p>Most renewals change nothing: the fleet is as the member last settled it and the member holds its fair share.
 * Such a renewal is one statement without the fleet's lock: it extends the member's lease only
 * while no lease of the fleet's budget has expired, the member holds its target, and the fleet's make-up (each other
 * row's member id, weight, demand, budget and session name) is the one its last settlement saw. Those decide the
 * member's target, so the grant it keeps is the grant a settlement would give; anything else settles in full. The
 * coordinator keeps its session between renewals, so that no renewal pays for the pool's check of an idle
 * connection; it gives it back when a member leaves.
 *
 * <p>The table is a trust boundary: whoever may write it could otherwise steer the fleet. A renewal takes a row for
 * a member of this fleet only if it agrees with the renewing member's configuration — the same budget, weight,
 * demand and grant in range, a lease that expires no further ahead than any member's lease ttl can, and a session
 * name of the {@linkplain FleetSettings#isMemberSessionName member form}. Any other row is neither counted, nor
 * fenced, nor deleted: it is returned in {@link Lease#ignored()} for the member to report. Fencing ends only
 * sessions of that name in this database and of the coordinator's own role, and never the sessions named by an
 * unexpired row or by the renewing member.
 *
 * <p>The fleet's total — what its leases split — is its budget, unless it follows the database's signals
 * ({@link FleetTotals}): then the first renewal to find it older than the total's interval asks for the next one, under
 * the fleet's lock, and writes it with the time on its own row; every renewal takes the newest total of the rows, so
 * every member splits the same. A lower total lowers targets at once and grants as members let go; a higher one is
 * grown into as any free share is. A move of the total alone is announced with its value, so that members that rest
 * follow it within their grants without renewing ({@link #newsFor}). The fencing is the same whatever the
 * total: grants never add up past the total they were granted from, nor ever past the budget.
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

    /** What separates the table's name from the total in a {@linkplain #totalAnnouncement total's announcement}. */
    private static final String TOTAL_ANNOUNCED = " total ";
    /** The most digits of a total an announcement is read with: those of {@link Integer#MAX_VALUE}. */
    private static final int MAX_TOTAL_DIGITS = 10;

    /** Creating the table waits for the fleet's lock like a renewal, but may then take its time. */
    private static final Duration DDL_TIMEOUT = Duration.ofSeconds(30);

    /** The columns of the table and their types, as {@code format_type} names them. */
    private static final Map<String, String> COLUMNS = columns();
    /**
     * The columns of a fleet's total, added to the table by the first member whose total follows the database: a
     * table without them serves the members that split their budget.
     */
    private static final Map<String, String> TOTAL_COLUMNS =
            Map.of("fleet_total", "integer", "fleet_total_at", "timestamp with time zone");
    /** The columns of a table whose fleet's total follows the database. */
    private static final Map<String, String> COLUMNS_WITH_TOTAL = withTotal();

    private final DataSource connections;
    private final String table;
    /** The table's schema-qualified name, resolved at first use; every statement uses it. */
    private volatile @Nullable ResolvedTable resolved;
    private final int budget;
    private final Duration lockWait;
    private final Duration renewalTimeout;
    /** How long a renewal waits for the ended sessions of an expired member to be gone: a quarter of its timeout. */
    private final Duration fenceWait;
    /** The session kept between renewals; empty while one is in use or none was opened. */
    private final AtomicReference<@Nullable Connection> keptSession = new AtomicReference<>();
    /** What each member's last settlement left, for its next renewal to keep alive; removed when it leaves. */
    private final Map<String, Settlement> settlements = new ConcurrentHashMap<>();
    /** Where the fleet's next total comes from; null when the fleet splits its budget. */
    private final @Nullable FleetTotals totals;
    /** How long a total lasts before a renewal asks for the next one. */
    private final Duration totalInterval;
    /**
     * The fleet's changes announced by other sessions that this coordinator's listening sessions heard, moves of the
     * total announced with their value apart.
     */
    private final AtomicLong changesHeard = new AtomicLong();
    /** The newest total announced with its value that the listening sessions heard, and how many such they heard. */
    private volatile HeardTotal totalHeard = new HeardTotal(0, 0);
    /** What was heard when each member's last renewal began; removed when it fails or leaves. */
    private final Map<String, HeardAt> heardAtRenewal = new ConcurrentHashMap<>();
    /** The session that listens for the fleet's announced changes; null while none does. */
    private volatile @Nullable Connection listening;

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
                Objects.requireNonNull(renewalTimeout, "renewalTimeout").dividedBy(4), null, Duration.ZERO);
    }

    /**
     * A coordinator whose fleet's total follows {@code totals}, as the other public constructor otherwise.
     *
     * @param totals        the next total of the fleet, asked once per {@code totalInterval} by the renewal that
     *                      finds the total due; every member of the fleet should give the same kind
     * @param totalInterval how long a total lasts: the members' heartbeat, so that the total moves once a heartbeat;
     *                      positive
     */
    public PostgresFleetCoordinator(DataSource connections, String table, int budget, Duration lockWait,
                                    Duration renewalTimeout, FleetTotals totals, Duration totalInterval) {
        this(connections, table, budget, lockWait, renewalTimeout,
                Objects.requireNonNull(renewalTimeout, "renewalTimeout").dividedBy(4),
                Objects.requireNonNull(totals, "totals"), totalInterval);
    }

    /** As the public constructors, with the wait for ended sessions to be gone given: tests make it zero. */
    PostgresFleetCoordinator(DataSource connections, String table, int budget, Duration lockWait,
                             Duration renewalTimeout, Duration fenceWait, @Nullable FleetTotals totals,
                             Duration totalInterval) {
        Objects.requireNonNull(totalInterval, "totalInterval");
        if (totals != null && (totalInterval.isNegative() || totalInterval.isZero())) {
            throw new IllegalArgumentException("the total's interval must be positive, was " + totalInterval);
        }
        this.totals = totals;
        this.totalInterval = totalInterval;
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

    private static Map<String, String> withTotal() {
        Map<String, String> columns = new HashMap<>(COLUMNS);
        columns.putAll(TOTAL_COLUMNS);
        return Map.copyOf(columns);
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
        Connection connection = null;
        try {
            connection = takeSession();
            ResolvedTable table = ensureTable(connection);
            listenOn(connection, table);
            heardAtRenewal.put(request.memberId(), new HeardAt(changesHeard.get(), totalHeard.announcements()));
            Settlement last = settlements.get(request.memberId());
            Lease kept = last == null || !last.asked(request) ? null
                    : keepAlive(connection, table.keepAlive(), request, last);
            Lease lease = kept != null ? kept : settleInFull(connection, table, request);
            keepSession(connection);
            return lease;
        } catch (SQLException e) {
            settlements.remove(request.memberId());
            heardAtRenewal.remove(request.memberId());
            discard(connection, e);
            throw new FleetUnavailableException("Could not renew the lease of fleet member '" + request.memberId()
                    + "' in table " + tableName() + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Reads what the kept session has already received, without a round trip: every settlement that changes the
     * fleet (a member joins or comes back, changes its weight or demand, is fenced, leaves, or the total moves)
     * announces it with {@code NOTIFY} on a channel of the table, which every member's coordinator session listens on;
     * a move of the total alone is announced with its value. Answers {@link FleetNews#MAY_HAVE_CHANGED} while a
     * renewal of another member of this coordinator has the session, and whenever the session turns out broken (its
     * next renewal opens another).
     */
    @Override
    public FleetNews newsFor(String memberId) {
        if (mayHaveChanged(memberId)) {
            return FleetNews.MAY_HAVE_CHANGED;
        }
        OptionalInt total = announcedTotal(memberId);
        return total.isPresent() ? new FleetNews.TotalMoved(total.getAsInt()) : FleetNews.UNCHANGED;
    }

    /**
     * Whether the fleet may have changed since the member's last renewal, a total announced with its value apart.
     */
    private boolean mayHaveChanged(String memberId) {
        HeardAt heard = heardAtRenewal.get(memberId);
        if (heard == null) {
            return true;
        }
        Connection session = keptSession.getAndSet(null);
        if (session == null) {
            return true;
        }
        try {
            boolean listens = session == listening;
            if (listens) {
                hear(session);
            }
            keepSession(session);
            return !listens || changesHeard.get() != heard.changes();
        } catch (SQLException broken) {
            discard(session, broken);
            return true;
        }
    }

    /**
     * The total announced with its value since the member's last renewal, as heard by the last {@link #mayHaveChanged}.
     * A move of the total is announced with the table's name and the new total, which is taken only when it names this
     * coordinator's table and lies from 1 to the budget; any other notification on the channel counts as a change of
     * the fleet, so that a member renews and reads the table, which is checked row by row.
     */
    OptionalInt announcedTotal(String memberId) {
        HeardAt heard = heardAtRenewal.get(memberId);
        HeardTotal newest = totalHeard;
        return heard != null && newest.announcements() != heard.totals() ? OptionalInt.of(newest.value())
                : OptionalInt.empty();
    }

    /** Whether a session of this coordinator listens for the fleet's announced changes: once it renewed on pgJDBC. */
    @Override
    public boolean announcesChanges() {
        return listening != null;
    }

    /** Listens for the fleet's changes on {@code session} when it does not yet, else takes in what it heard. */
    private void listenOn(Connection session, ResolvedTable table) throws SQLException {
        if (session == listening) {
            hear(session);
            return;
        }
        if (PostgresNotifications.listen(session, table.channel())) {
            listening = session;
            // Whatever was announced while no session listened went unheard: every member renews once.
            changesHeard.incrementAndGet();
        }
    }

    /** Takes in what the session heard; only the thread holding the session calls this. */
    private void hear(Connection session) throws SQLException {
        ResolvedTable table = resolved;
        for (String payload : PostgresNotifications.receivedFromOthers(session)) {
            int total = table == null ? 0 : announcedTotalIn(payload, table.name(), budget);
            if (total > 0) {
                totalHeard = new HeardTotal(totalHeard.announcements() + 1, total);
            } else {
                changesHeard.incrementAndGet();
            }
        }
    }

    /** What a settlement that moved the total of {@code table} and changed nothing else announces. */
    static String totalAnnouncement(String table, int total) {
        return table + TOTAL_ANNOUNCED + total;
    }

    /**
     * The total {@code payload} announces for {@code table}, when it is {@link #totalAnnouncement} of a total from 1 to
     * {@code budget}; else 0. Anyone who may notify on the channel can send anything, of up to 8000 bytes: only that
     * exact form is taken.
     */
    static int announcedTotalIn(String payload, String table, int budget) {
        String prefix = table + TOTAL_ANNOUNCED;
        int digits = payload.length() - prefix.length();
        if (digits < 1 || digits > MAX_TOTAL_DIGITS || !payload.startsWith(prefix)) {
            return 0;
        }
        long total = 0;
        for (int i = prefix.length(); i < payload.length(); i++) {
            char c = payload.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            total = total * 10 + (c - '0');
        }
        return total >= 1 && total <= budget && payload.charAt(prefix.length()) != '0' ? (int) total : 0;
    }

    @Override
    public void leave(String memberId) {
        settlements.remove(memberId);
        heardAtRenewal.remove(memberId);
        ResolvedTable table = resolved;
        if (table == null) {
            // Never renewed through this coordinator: it wrote no lease to end.
            return;
        }
        String name = table.name();
        Connection connection = null;
        try {
            connection = takeSession();
            try (PreparedStatement delete = connection.prepareStatement("WITH gone AS (DELETE FROM " + name
                    + " WHERE member_id = ? RETURNING 1) SELECT pg_notify(?, '') FROM gone")) {
                // The others grow into the share at their next heartbeat, however seldom they renew.
                delete.setString(1, memberId);
                delete.setString(2, table.channel());
                delete.executeQuery().close();
            }
            // The member is gone: its session goes back to the pool, as the pool lent it.
            giveBack(connection);
        } catch (SQLException e) {
            discard(connection, e);
            throw new FleetUnavailableException("Could not end the lease of fleet member '" + memberId
                    + "' in table " + name + "; it ends when it expires: " + e.getMessage(), e);
        }
    }

    /**
     * The kept session, or a new one from the pool bounded like a renewal: every statement outside the renewal's own
     * transaction (the keep-alive, a leave) waits for a lock at most the lock wait and runs at most the renewal
     * timeout.
     */
    private Connection takeSession() throws SQLException {
        Connection kept = keptSession.getAndSet(null);
        if (kept != null) {
            return kept;
        }
        Connection connection = connections.getConnection();
        try (Statement limits = connection.createStatement()) {
            connection.setAutoCommit(true);
            limits.execute("SET lock_timeout = " + Math.max(1, lockWait.toMillis()) + "; SET statement_timeout = "
                    + Math.max(1, renewalTimeout.toMillis()));
        } catch (SQLException e) {
            discard(connection, e);
            throw e;
        }
        return connection;
    }

    /** Keeps the session for the next renewal; one already kept (renewals of several members at once) wins. */
    private void keepSession(Connection connection) throws SQLException {
        if (!keptSession.compareAndSet(null, connection)) {
            giveBack(connection);
        }
    }

    /** Returns a session to the pool without the limits this coordinator set on it, listening to nothing. */
    private void giveBack(Connection connection) throws SQLException {
        stopListening(connection);
        try (Connection returned = connection; Statement reset = returned.createStatement()) {
            reset.execute("RESET lock_timeout; RESET statement_timeout; UNLISTEN *");
        }
    }

    /**
     * Returns a session that failed to the pool: the pool judges whether it can still be used, and one that can is
     * first made to listen to nothing, so that no other borrower collects the fleet's notifications.
     */
    private void discard(@Nullable Connection connection, SQLException failure) {
        if (connection == null) {
            return;
        }
        if (stopListening(connection)) {
            try (Statement reset = connection.createStatement()) {
                reset.execute("UNLISTEN *");
            } catch (SQLException unlisten) {
                failure.addSuppressed(unlisten);
            }
        }
        try {
            connection.close();
        } catch (SQLException close) {
            failure.addSuppressed(close);
        }
    }

    /** @return whether {@code connection} was the listening session */
    private boolean stopListening(Connection connection) {
        if (listening != connection) {
            return false;
        }
        listening = null;
        return true;
    }

    /**
     * Extends the member's lease in one statement, without the fleet's lock, when nothing a settlement decides has
     * changed since the member's last one: no lease of the fleet's budget expired, the member holds its target, the
     * other rows are the same members with the same weights, demands, budgets and session names.
     *
     * @return the lease, or null when the renewal must settle in full
     */
    private @Nullable Lease keepAlive(Connection connection, String keepAliveStatement, LeaseRequest request,
                                      Settlement last) throws SQLException {
        try (PreparedStatement keep = connection.prepareStatement(keepAliveStatement)) {
            keep.setLong(1, request.leaseTtl().toNanos() / 1_000);
            keep.setString(2, request.memberId());
            keep.setInt(3, budget);
            keep.setInt(4, request.weight());
            keep.setInt(5, request.demand());
            keep.setString(6, request.sessionName());
            keep.setString(7, last.makeUp());
            if (totals != null) {
                keep.setInt(8, last.lease().total());
                keep.setLong(9, totalInterval.toNanos() / 1_000);
            }
            try (ResultSet kept = keep.executeQuery()) {
                if (!kept.next() || kept.getInt(1) != last.lease().granted()) {
                    return null;
                }
            }
        }
        Lease previous = last.lease();
        List<FleetMemberState> members = new ArrayList<>();
        for (FleetMemberState member : previous.members()) {
            members.add(member.memberId().equals(request.memberId())
                    ? new FleetMemberState(member.memberId(), member.weight(), member.demand(), member.granted(),
                    member.target(), Duration.ZERO, request.leaseTtl())
                    : member);
        }
        return new Lease(previous.granted(), previous.target(), budget, previous.total(), members, List.of(),
                List.of());
    }

    /**
     * The keep-alive's statement on {@code table}; its parameters are set in {@link #keepAlive}. With
     * {@code followsTotal}, it also keeps alive only while the fleet's newest total is the one last settled against and
     * is not yet due.
     */
    private static String keepAliveStatement(String table, boolean followsTotal) {
        return "UPDATE " + table + " AS m SET"
                + " renewed_at = c.now, lease_expires_at = c.now + ? * interval '1 microsecond'"
                + " FROM (SELECT clock_timestamp() AS now) AS c"
                + " WHERE m.member_id = ? AND m.budget = ? AND m.weight = ? AND m.demand = ?"
                + " AND m.session_name IS NOT DISTINCT FROM ? AND m.granted = m.target AND m.lease_expires_at > c.now"
                + " AND NOT EXISTS (SELECT 1 FROM " + table + " AS e WHERE e.budget = m.budget"
                + " AND e.lease_expires_at <= c.now)"
                + " AND " + makeUp(table, "m.member_id") + " = ?"
                + (followsTotal ? " AND EXISTS (SELECT 1 FROM (" + newestTotal(table, "m.budget", "c.now") + ") AS n"
                        + " WHERE n.fleet_total = ? AND n.fleet_total_at > c.now - ? * interval '1 microsecond')" : "")
                + " RETURNING m.granted";
    }

    /**
     * The newest total of the rows of {@code budget} (SQL expressions) that lie within it and were written by
     * {@code now}: the query's one row, or none.
     */
    private static String newestTotal(String table, String budget, String now) {
        return "SELECT t.fleet_total, t.fleet_total_at FROM " + table + " AS t WHERE t.budget = " + budget
                + " AND t.fleet_total BETWEEN 1 AND " + budget + " AND t.fleet_total_at <= " + now
                + " ORDER BY t.fleet_total_at DESC, t.member_id LIMIT 1";
    }

    /**
     * The make-up of the fleet apart from {@code member} (an SQL expression naming it): the rows' count and a sum of
     * hashes of what decides a settlement. A change detector, not a proof: a row that changed unseen changes the
     * split only until the fleet next changes, and never the budget's bound, which no keep-alive touches.
     */
    private static String makeUp(String table, String member) {
        return "(SELECT count(*) || '/' || coalesce(sum(hashtextextended(o.member_id || '/' || o.weight || '/'"
                + " || o.demand || '/' || o.budget || '/' || coalesce(o.session_name, ''), 0)::numeric), 0)"
                + " FROM " + table + " AS o WHERE o.member_id <> " + member + ")";
    }

    private Lease settleInFull(Connection connection, ResolvedTable table, LeaseRequest request)
            throws SQLException {
        Settlement settled = inTransaction(connection, lockWait, renewalTimeout,
                () -> settle(connection, table, request));
        settlements.put(request.memberId(), settled);
        return settled.lease();
    }

    /** The table's name, as configured. */
    public String table() {
        return table;
    }

    /** The table's name as every statement uses it: schema-qualified once resolved, as configured before. */
    private String tableName() {
        ResolvedTable table = resolved;
        return table == null ? this.table : table.name();
    }

    private Settlement settle(Connection connection, ResolvedTable resolvedTable, LeaseRequest request)
            throws SQLException {
        String table = resolvedTable.name();
        try (Statement statement = connection.createStatement()) {
            statement.execute("LOCK TABLE " + table + " IN EXCLUSIVE MODE");
        }
        List<Row> rows = new ArrayList<>();
        OffsetDateTime now = readRows(connection, resolvedTable, rows);
        List<Row> live = new ArrayList<>();
        List<Row> expired = new ArrayList<>();
        List<Lease.Ignored> ignored = new ArrayList<>();
        for (Row row : rows) {
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
        boolean changesFleet = false;
        for (Row row : expired) {
            boolean own = row.memberId().equals(request.memberId());
            if (!own && row.sessionName() != null && liveSessionNames.contains(row.sessionName())) {
                ignored.add(new Lease.Ignored(row.memberId(), "its session name '" + row.sessionName()
                        + "' is a live member's"));
            } else if (fence(connection, table, row, fenced)) {
                changesFleet = true;
            } else {
                reserved += row.granted();
            }
        }
        int ownGranted = 0;
        boolean joins = true;
        List<ShareSettlement.Holder> others = new ArrayList<>();
        for (Row row : live) {
            if (row.memberId().equals(request.memberId())) {
                ownGranted = row.granted();
                joins = false;
                changesFleet |= row.weight() != request.weight() || row.demand() != request.demand()
                        || !Objects.equals(row.sessionName(), request.sessionName());
            } else {
                others.add(new ShareSettlement.Holder(row.memberId(), row.weight(), row.demand(), row.granted()));
            }
        }
        Total previousTotal = newestTotal(rows, ignored);
        Total total = total(previousTotal, others, request, ownGranted, now);
        changesFleet |= joins;
        boolean totalMoved = totals != null && (previousTotal == null || previousTotal.value() != total.value());
        ShareSettlement.Settled settled = ShareSettlement.settle(total.value(), others, request, ownGranted,
                reserved);
        OffsetDateTime expires = now.plus(request.leaseTtl());
        String makeUp;
        boolean totalColumns = resolvedTable.totalColumns();
        try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO " + table
                + " (member_id, weight, demand, granted, target, budget, joined_at, renewed_at, lease_expires_at,"
                + " session_name" + (totalColumns ? ", fleet_total, fleet_total_at" : "") + ") VALUES"
                + " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?" + (totalColumns ? ", ?, ?" : "") + ") ON CONFLICT (member_id)"
                + " DO UPDATE SET weight = excluded.weight, demand = excluded.demand, granted = excluded.granted,"
                + " target = excluded.target, budget = excluded.budget, renewed_at = excluded.renewed_at,"
                + " lease_expires_at = excluded.lease_expires_at, session_name = excluded.session_name"
                + (totalColumns ? ", fleet_total = excluded.fleet_total, fleet_total_at = excluded.fleet_total_at"
                        : "")
                + " RETURNING " + makeUp(table, "?"))) {
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
            int next = 11;
            if (totalColumns) {
                upsert.setObject(next++, totals == null ? null : total.value(), java.sql.Types.INTEGER);
                upsert.setObject(next++, totals == null ? null : total.at());
            }
            upsert.setString(next, request.memberId());
            try (ResultSet written = upsert.executeQuery()) {
                written.next();
                makeUp = written.getString(1);
            }
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
        if (changesFleet) {
            announce(connection, resolvedTable, "");
        } else if (totalMoved) {
            // Members that rest follow it without renewing: each lowers its use to its new target at once, and
            // renews only when that target is more than its lease grants.
            announce(connection, resolvedTable, totalAnnouncement(table, total.value()));
        }
        return new Settlement(request, makeUp,
                new Lease(settled.granted(), settled.target(), budget, total.value(), members, fenced, ignored));
    }

    /**
     * The fleet's total for this renewal: the budget when the fleet splits it; else {@code newest}, the newest total of the rows taken,
     * or the next one when that is due — older than the total's interval, or none yet — which is then this renewal's
     * to write. A total the source holds is written again with the new time, so that no other renewal of the interval
     * asks for it again.
     */
    private Total total(@Nullable Total newest, List<ShareSettlement.Holder> others, LeaseRequest request,
                        int ownGranted, OffsetDateTime now) {
        if (totals == null) {
            return new Total(budget, now);
        }
        if (newest != null && newest.at().isAfter(now.minus(totalInterval))) {
            return newest;
        }
        int current = newest == null ? budget : newest.value();
        long granted = ownGranted + others.stream().mapToLong(ShareSettlement.Holder::granted).sum();
        long demand = request.demand() + others.stream().mapToLong(ShareSettlement.Holder::demand).sum();
        FleetTotals.Fleet fleet = new FleetTotals.Fleet(current, budget, (int) Math.min(Integer.MAX_VALUE, granted),
                (int) Math.min(Integer.MAX_VALUE, demand));
        return new Total(nextOrHeld(fleet), now);
    }

    /** The newest total of the rows taken, ignored ones apart; the first member id's among equally new ones. */
    private static @Nullable Total newestTotal(List<Row> rows, List<Lease.Ignored> ignored) {
        Set<String> ignoredIds = new HashSet<>();
        ignored.forEach(row -> ignoredIds.add(row.memberId()));
        Total newest = null;
        String newestBy = "";
        for (Row row : rows) {
            Total written = row.total();
            if (written != null && !ignoredIds.contains(row.memberId()) && (newest == null
                    || written.at().isAfter(newest.at())
                    || written.at().isEqual(newest.at()) && row.memberId().compareTo(newestBy) < 0)) {
                newest = written;
                newestBy = row.memberId();
            }
        }
        return newest;
    }

    /**
     * Tells every member's coordinator, once this transaction commits, that the fleet changed: with an empty
     * {@code payload} members renewing seldom renew at their next heartbeat; with a {@link #totalAnnouncement} they
     * follow the total without renewing while its target is within their grant.
     */
    private static void announce(Connection connection, ResolvedTable table, String payload) throws SQLException {
        try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
            notify.setString(1, table.channel());
            notify.setString(2, payload);
            notify.executeQuery().close();
        }
    }

    /** The source's next total, or the current one when it has none, fails, or gives one out of range. */
    private int nextOrHeld(FleetTotals.Fleet fleet) {
        OptionalInt next;
        try {
            next = Objects.requireNonNull(totals, "totals").next(fleet);
        } catch (RuntimeException failed) {
            // The source's own reporting says why; the fleet's leases must not fail with it.
            return fleet.total();
        }
        return next.isPresent() && next.getAsInt() >= 1 && next.getAsInt() <= fleet.budget() ? next.getAsInt()
                : fleet.total();
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
        Total total = row.total();
        if ((row.fleetTotal() == null) != (row.fleetTotalAt() == null)
                || total != null && (total.value() < 1 || total.value() > budget || total.at().isAfter(now))) {
            return "its fleet total " + row.fleetTotal() + " at " + row.fleetTotalAt() + " is out of range (from 1 to"
                    + " the budget " + budget + ", written by now, both or neither)";
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

    /**
     * Reads the server's clock and every row in one query: the clock once, on a row of its own when the table is
     * empty.
     *
     * @return the server's clock
     */
    private static OffsetDateTime readRows(Connection connection, ResolvedTable table, List<Row> rows)
            throws SQLException {
        OffsetDateTime now = null;
        boolean totalColumns = table.totalColumns();
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT c.now, f.member_id, f.weight, f.demand, f.granted,"
                     + " f.target, f.budget, f.renewed_at, f.lease_expires_at, f.session_name"
                     + (totalColumns ? ", f.fleet_total, f.fleet_total_at" : "")
                     + " FROM (SELECT clock_timestamp() AS now) AS c LEFT JOIN " + table.name() + " AS f ON true")) {
            while (result.next()) {
                now = result.getObject(1, OffsetDateTime.class);
                if (result.getString(2) != null) {
                    rows.add(new Row(result.getString(2), result.getInt(3), result.getInt(4), result.getInt(5),
                            result.getInt(6), result.getInt(7), result.getObject(8, OffsetDateTime.class),
                            result.getObject(9, OffsetDateTime.class), result.getString(10),
                            totalColumns ? result.getObject(11, Integer.class) : null,
                            totalColumns ? result.getObject(12, OffsetDateTime.class) : null));
                }
            }
        }
        return Objects.requireNonNull(now, "the server's clock");
    }

    /**
     * Creates the table if it is missing and checks its shape, once.
     *
     * @return its schema-qualified name, with the keep-alive's statement on it
     */
    private ResolvedTable ensureTable(Connection connection) throws SQLException {
        ResolvedTable ready = resolved;
        if (ready != null) {
            return ready;
        }
        ResolvedTable table = inTransaction(connection, lockWait, DDL_TIMEOUT, () -> {
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
                if (totals != null && found.equals(COLUMNS)) {
                    // A table of a fleet that split its budget until now: its total follows the database from now on.
                    create.execute("ALTER TABLE " + qualified + " ADD COLUMN IF NOT EXISTS fleet_total integer,"
                            + " ADD COLUMN IF NOT EXISTS fleet_total_at timestamptz");
                    found = columnsOf(connection, qualified);
                }
                if (!found.equals(COLUMNS) && !found.equals(COLUMNS_WITH_TOTAL)) {
                    throw new SQLException("table " + qualified + " exists but is not a fleet table: its columns are "
                            + new TreeMap<>(found) + ", a fleet table's are exactly " + new TreeMap<>(COLUMNS)
                            + ", with " + new TreeMap<>(TOTAL_COLUMNS) + " once its total follows the database"
                            + "; drop or rename it, or give the fleet a table of its own");
                }
                boolean totalColumns = found.equals(COLUMNS_WITH_TOTAL);
                return new ResolvedTable(qualified, keepAliveStatement(qualified, totals != null), totalColumns,
                        channelOf(qualified));
            }
        });
        resolved = table;
        return table;
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
                // One round trip, which also opens the transaction.
                limits.execute("SET LOCAL lock_timeout = " + Math.max(1, lockWait.toMillis())
                        + "; SET LOCAL statement_timeout = " + millis
                        + "; SET LOCAL idle_in_transaction_session_timeout = " + millis);
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

    /**
     * A member's last settlement: what it asked, the make-up of the fleet it was settled against, its lease.
     */
    private record Settlement(LeaseRequest request, String makeUp, Lease lease) {

        /** Whether {@code next} asks what the settlement was for: the same weight, demand, lease ttl and session. */
        boolean asked(LeaseRequest next) {
            return next.weight() == request.weight() && next.demand() == request.demand()
                    && next.leaseTtl().equals(request.leaseTtl())
                    && Objects.equals(next.sessionName(), request.sessionName());
        }
    }

    /**
     * The table as every statement names it, schema-qualified, the keep-alive's statement on it, built once, and the
     * channel its fleet's changes are announced on.
     */
    private record ResolvedTable(String name, String keepAlive, boolean totalColumns, String channel) {
    }

    /**
     * The channel of the fleet of {@code qualified}: a plain identifier, well within the server's 63 bytes whatever
     * the table's name. Two tables whose names hash alike share one; their members then renew a little more often.
     */
    static String channelOf(String qualified) {
        return "db_bulkhead_fleet_" + Integer.toHexString(qualified.hashCode());
    }

    private record Row(String memberId, int weight, int demand, int granted, int target, int budget,
                       OffsetDateTime renewedAt, OffsetDateTime expiresAt, @Nullable String sessionName,
                       @Nullable Integer fleetTotal, @Nullable OffsetDateTime fleetTotalAt) {

        /** The total the row carries; null when it carries none, or only half of one. */
        @Nullable Total total() {
            return fleetTotal == null || fleetTotalAt == null ? null : new Total(fleetTotal, fleetTotalAt);
        }
    }

    /** A fleet's total and when it was set. */
    private record Total(int value, OffsetDateTime at) {
    }

    /** The newest total announced with its value, and how many such announcements were heard in all. */
    private record HeardTotal(long announcements, int value) {
    }

    /** What was heard when a member's renewal began: the changes, and the totals announced with their value. */
    private record HeardAt(long changes, long totals) {
    }
}
