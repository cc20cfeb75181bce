package dev.dbbulkhead.fleet;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
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

    /** Default lock wait of a renewal: half the default heartbeat ({@link FleetSettings#renewalLockWait()}). */
    public static final Duration DEFAULT_RENEWAL_LOCK_WAIT = Duration.ofMillis(500);
    /** Default renewal timeout: a quarter of the default lease ttl ({@link FleetSettings#renewalTimeout()}). */
    public static final Duration DEFAULT_RENEWAL_TIMEOUT = Duration.ofMillis(1250);

    private final String table;
    /** The table's schema-qualified name, resolved at first use; every statement uses it. */
    private volatile FleetTable.@Nullable Resolved resolved;
    private final int budget;
    private final Duration lockWait;
    private final Duration renewalTimeout;
    /** Whether the fleet's total follows the database rather than being its budget. */
    private final boolean followsTotal;
    /** How long a total lasts before a renewal asks for the next one. */
    private final Duration totalInterval;
    /** What each member's last settlement left, for its next renewal to keep alive; removed when it leaves. */
    private final Map<String, FullSettlement.Settlement> settlements = new ConcurrentHashMap<>();
    /** Settles a renewal in full, under the fleet's lock, when a keep-alive cannot extend its lease. */
    private final FullSettlement settlement;
    /** What the fleet announced that this coordinator's listening session heard since each member's renewal. */
    private final FleetAnnouncements announcements;
    /** The session kept between renewals, which is also the one that listens. */
    private final KeptSession session;

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
        Objects.requireNonNull(lockWait, "lockWait");
        Objects.requireNonNull(renewalTimeout, "renewalTimeout");
        if (lockWait.toMillis() < 1 || renewalTimeout.compareTo(lockWait) < 0) {
            throw new IllegalArgumentException("lock wait must be at least 1ms and the renewal timeout at least the"
                    + " lock wait, were " + lockWait + " and " + renewalTimeout);
        }
        Objects.requireNonNull(fenceWait, "fenceWait");
        Objects.requireNonNull(connections, "connections");
        this.table = FleetTable.checkedName(table);
        if (budget < 1) {
            throw new IllegalArgumentException("connection budget must be between 1 and " + Integer.MAX_VALUE
                    + ", was " + budget);
        }
        this.budget = budget;
        this.lockWait = lockWait;
        this.renewalTimeout = renewalTimeout;
        this.followsTotal = totals != null;
        this.totalInterval = totalInterval;
        this.settlement = new FullSettlement(budget, fenceWait, totals, totalInterval);
        this.announcements = new FleetAnnouncements(budget);
        this.session = new KeptSession(connections, lockWait, renewalTimeout, announcements);
    }

    /** The DDL of the table, for users who create it themselves: qualify the name with its schema there. */
    public String createTableStatement() {
        return FleetTable.createStatement(table);
    }

    /** The table's name, as configured. */
    public String table() {
        return table;
    }

    @Override
    public Lease renew(LeaseRequest request) {
        Connection connection = null;
        try {
            connection = session.take();
            FleetTable.Resolved table = ensureTable(connection);
            announcements.listenOn(connection, table.name(), table.channel());
            announcements.renewing(request.memberId());
            FullSettlement.Settlement last = settlements.get(request.memberId());
            Lease kept = last == null || !last.asked(request) ? null
                    : keepAlive(connection, table.keepAlive(), request, last);
            Lease lease = kept != null ? kept : settleInFull(connection, table, request);
            session.keep(connection);
            return lease;
        } catch (SQLException e) {
            settlements.remove(request.memberId());
            announcements.forget(request.memberId());
            session.discard(connection, e);
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
        FleetAnnouncements.HeardAt heard = announcements.heardAt(memberId);
        if (heard == null) {
            return true;
        }
        Connection kept = session.takeKept();
        if (kept == null) {
            return true;
        }
        try {
            boolean listens = announcements.listensOn(kept);
            if (listens) {
                FleetTable.Resolved table = resolved;
                announcements.hear(kept, table == null ? null : table.name());
            }
            session.keep(kept);
            return !listens || announcements.changedSince(heard);
        } catch (SQLException broken) {
            session.discard(kept, broken);
            return true;
        }
    }

    /**
     * The total announced with its value since the member's last renewal, as heard by the last {@link #mayHaveChanged}
     * ({@link FleetAnnouncements#announcedTotal}).
     */
    OptionalInt announcedTotal(String memberId) {
        return announcements.announcedTotal(memberId);
    }

    /** Whether a session of this coordinator listens for the fleet's announced changes: once it renewed on pgJDBC. */
    @Override
    public boolean announcesChanges() {
        return announcements.listens();
    }

    @Override
    public void leave(String memberId) {
        settlements.remove(memberId);
        announcements.forget(memberId);
        FleetTable.Resolved table = resolved;
        if (table == null) {
            // Never renewed through this coordinator: it wrote no lease to end.
            return;
        }
        Connection connection = null;
        try {
            connection = session.take();
            FleetStatements.leave(connection, table, memberId);
            // The member is gone: its session goes back to the pool, as the pool lent it.
            session.giveBack(connection);
        } catch (SQLException e) {
            session.discard(connection, e);
            throw new FleetUnavailableException("Could not end the lease of fleet member '" + memberId
                    + "' in table " + table.name() + "; it ends when it expires: " + e.getMessage(), e);
        }
    }

    /**
     * Extends the member's lease in one statement, without the fleet's lock, when nothing a settlement decides has
     * changed since the member's last one ({@link FleetStatements#keepAlive}).
     *
     * @return the lease, or null when the renewal must settle in full
     */
    private @Nullable Lease keepAlive(Connection connection, String keepAliveStatement, LeaseRequest request,
                                      FullSettlement.Settlement last) throws SQLException {
        int granted = FleetStatements.keepAlive(connection, keepAliveStatement, request, budget, last.makeUp(),
                followsTotal ? last.lease().total() : null, totalInterval);
        return granted == last.lease().granted() ? last.keptAlive(request) : null;
    }

    private Lease settleInFull(Connection connection, FleetTable.Resolved table, LeaseRequest request)
            throws SQLException {
        FullSettlement.Settlement settled = FleetStatements.inTransaction(connection, lockWait, renewalTimeout,
                () -> settlement.settle(connection, table, request));
        settlements.put(request.memberId(), settled);
        return settled.lease();
    }

    /** The table's name as every statement uses it: schema-qualified once resolved, as configured before. */
    private String tableName() {
        FleetTable.Resolved table = resolved;
        return table == null ? this.table : table.name();
    }

    /**
     * Creates the table if it is missing and checks its shape, once.
     *
     * @return its schema-qualified name, with the keep-alive's statement on it
     */
    private FleetTable.Resolved ensureTable(Connection connection) throws SQLException {
        FleetTable.Resolved ready = resolved;
        if (ready != null) {
            return ready;
        }
        FleetTable.Resolved table = FleetTable.resolve(connection, this.table, lockWait, followsTotal);
        resolved = table;
        return table;
    }
}
