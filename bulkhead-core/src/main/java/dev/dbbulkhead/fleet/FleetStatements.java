package dev.dbbulkhead.fleet;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The statements a coordinator runs on the fleet's table once it is resolved ({@link FleetTable}): the keep-alive, the
 * reading, locking and writing of a settlement, the deletion of a fenced member's row and a leave, and the bounded
 * transaction a settlement runs in. Each names the table schema-qualified; none decides anything.
 */
final class FleetStatements {

    private FleetStatements() {
    }

    /** A row of the table, as a settlement reads it. */
    record Row(String memberId, int weight, int demand, int granted, int target, int budget,
               OffsetDateTime renewedAt, OffsetDateTime expiresAt, @Nullable String sessionName,
               @Nullable Integer fleetTotal, @Nullable OffsetDateTime fleetTotalAt) {

        /** The total the row carries; null when it carries none, or only half of one. */
        @Nullable Total total() {
            return fleetTotal == null || fleetTotalAt == null ? null : new Total(fleetTotal, fleetTotalAt);
        }
    }

    /** A fleet's total and when it was set. */
    record Total(int value, OffsetDateTime at) {
    }

    /**
     * Runs {@code work} in one transaction whose lock waits are bounded by {@code lockWait} and whose statements,
     * and the server's wait for this client between them, by {@code bound}: a renewal stuck behind another gives
     * up instead of outliving the lease it renews, and one whose member froze mid-transaction is ended by the
     * server, which lets go of the fleet's lock, instead of holding every other renewal back.
     */
    static <T extends @Nullable Object> T inTransaction(Connection connection, Duration lockWait,
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

    /** A step of work on the database. */
    @FunctionalInterface
    interface SqlStep<T extends @Nullable Object> {
        T run() throws SQLException;
    }

    /**
     * The keep-alive's statement on {@code table}; its parameters are set in {@link #keepAlive}. With
     * {@code followsTotal}, it also keeps alive only while the fleet's newest total is the one last settled against and
     * is not yet due.
     */
    static String keepAliveStatement(String table, boolean followsTotal) {
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
     * Extends the member's lease in one statement, without the fleet's lock, when nothing a settlement decides has
     * changed since the member's last one: no lease of the fleet's budget expired, the member holds its target, the
     * other rows are the same members with the same weights, demands, budgets and session names.
     *
     * @param keepAliveStatement the {@link #keepAliveStatement} of the table
     * @param makeUp             the make-up of the fleet the member's last settlement saw
     * @param total              the total the last settlement was against, when the total follows the database; it
     *                           must still be the newest and younger than {@code totalInterval}; null otherwise
     * @return the member's grant as its row holds it, or -1 when the lease was not extended
     */
    static int keepAlive(Connection connection, String keepAliveStatement, LeaseRequest request, int budget,
                         String makeUp, @Nullable Integer total, Duration totalInterval) throws SQLException {
        try (PreparedStatement keep = connection.prepareStatement(keepAliveStatement)) {
            keep.setLong(1, request.leaseTtl().toNanos() / 1_000);
            keep.setString(2, request.memberId());
            keep.setInt(3, budget);
            keep.setInt(4, request.weight());
            keep.setInt(5, request.demand());
            keep.setString(6, request.sessionName());
            keep.setString(7, makeUp);
            if (total != null) {
                keep.setInt(8, total);
                keep.setLong(9, totalInterval.toNanos() / 1_000);
            }
            try (ResultSet kept = keep.executeQuery()) {
                return kept.next() ? kept.getInt(1) : -1;
            }
        }
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

    /** Locks the table for a settlement: plain reads go on; renewals and leaves of all members queue. */
    static void lock(Connection connection, String table) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("LOCK TABLE " + table + " IN EXCLUSIVE MODE");
        }
    }

    /**
     * Reads the server's clock and every row in one query: the clock once, on a row of its own when the table is
     * empty.
     *
     * @return the server's clock
     */
    static OffsetDateTime readRows(Connection connection, FleetTable.Resolved table, List<Row> rows)
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
     * Writes the member's row as settled at {@code now}, joining if it has none.
     *
     * @param total the total to write when the table has its columns; null writes none
     * @return the make-up of the fleet apart from the member, for its next keep-alive
     */
    static String write(Connection connection, FleetTable.Resolved resolved, LeaseRequest request, int granted,
                        int target, int budget, OffsetDateTime now, OffsetDateTime expires, @Nullable Total total)
            throws SQLException {
        String table = resolved.name();
        boolean totalColumns = resolved.totalColumns();
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
            upsert.setInt(4, granted);
            upsert.setInt(5, target);
            upsert.setInt(6, budget);
            upsert.setObject(7, now);
            upsert.setObject(8, now);
            upsert.setObject(9, expires);
            upsert.setString(10, request.sessionName());
            int next = 11;
            if (totalColumns) {
                upsert.setObject(next++, total == null ? null : total.value(), Types.INTEGER);
                upsert.setObject(next++, total == null ? null : total.at());
            }
            upsert.setString(next, request.memberId());
            try (ResultSet written = upsert.executeQuery()) {
                written.next();
                return written.getString(1);
            }
        }
    }

    /** Deletes the row of a member whose sessions were ended: from then on its share is free. */
    static void delete(Connection connection, String table, String memberId) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM " + table + " WHERE member_id = ?")) {
            delete.setString(1, memberId);
            delete.executeUpdate();
        }
    }

    /** Deletes the row of a member that leaves and, if it had one, announces the change on the table's channel. */
    static void leave(Connection connection, FleetTable.Resolved table, String memberId) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement("WITH gone AS (DELETE FROM " + table.name()
                + " WHERE member_id = ? RETURNING 1) SELECT pg_notify(?, '') FROM gone")) {
            // The others grow into the share at their next heartbeat, however seldom they renew.
            delete.setString(1, memberId);
            delete.setString(2, table.channel());
            delete.executeQuery().close();
        }
    }
}
