package dev.dbbulkhead.fleettests;

import dev.dbbulkhead.fleet.PostgresFleetCoordinator;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Stops an instance while its renewal transaction holds the fleet table's {@code EXCLUSIVE} lock, as a GC pause or
 * a frozen container may catch it. The lock is held for a few milliseconds per heartbeat, so the watch asks the
 * server in a tight loop which backend holds it, stops the instance the moment its coordinator's backend does, and
 * then makes sure it was caught inside the transaction: the backend still holds the lock, idle in transaction
 * (waiting for the frozen client), long enough that nothing the client sent before it stopped is still on its way.
 * If the renewal got to its commit first, the instance runs on and the watch tries again.
 *
 * <p>A member whose fleet is unchanged keeps its lease alive in one statement, without the lock; so while the watch
 * runs, the table holds a row that keeps every renewal a settlement under the lock: an expired lease of the fleet's
 * budget whose grant is out of range, which no member takes for one of its own, fences or deletes.
 */
final class RenewalFreeze {

    /** How long the caught backend must stay idle in its transaction for nothing to be in flight any more. */
    private static final String SETTLED = "interval '100 milliseconds'";
    private static final String FLEET_LOCK = "l.locktype = 'relation' AND l.relation = to_regclass('"
            + PostgresFleetCoordinator.DEFAULT_TABLE + "') AND l.mode = 'ExclusiveLock' AND l.granted";
    private static final Duration SETTLE_LIMIT = Duration.ofSeconds(5);
    /** The member id of the row that keeps every renewal a settlement while the watch runs. */
    private static final String SETTLING = "settling-every-renewal";

    /**
     * What was caught.
     *
     * @param backendPid the server process of the instance's coordinator that holds the lock
     * @param attempts   how many times the instance was stopped until one caught the lock
     * @param at         when the instance was stopped for good ({@link System#nanoTime()})
     * @param outcome    how the catch was confirmed
     */
    record Caught(int backendPid, int attempts, long at, String outcome) {
    }

    private RenewalFreeze() {
    }

    /** Stops {@code instance} inside a renewal; gives up after {@code attempts} stops or {@code limit}. */
    static Caught freeze(Fleet fleet, Instance instance, int attempts, Duration limit) throws SQLException {
        long deadline = System.nanoTime() + limit.toNanos();
        try (Connection watch = fleet.server().connect("fleet-lock-watch");
             Statement settling = watch.createStatement();
             PreparedStatement holder = watch.prepareStatement("SELECT l.pid FROM pg_locks l"
                     + " JOIN pg_stat_activity a ON a.pid = l.pid WHERE " + FLEET_LOCK
                     + " AND (a.application_name = ? OR a.application_name LIKE ?)");
             PreparedStatement held = watch.prepareStatement("SELECT a.state = 'idle in transaction'"
                     + " AND clock_timestamp() - a.state_change >= " + SETTLED + ","
                     + " EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND " + FLEET_LOCK + ")"
                     + " FROM pg_stat_activity a WHERE a.pid = ?")) {
            holder.setString(1, instance.name());
            holder.setString(2, instance.name() + " %");
            settling.execute("INSERT INTO " + PostgresFleetCoordinator.DEFAULT_TABLE + " (member_id, weight, demand,"
                    + " granted, target, budget, joined_at, renewed_at, lease_expires_at) VALUES ('" + SETTLING
                    + "', 1, 1, 2, 0, " + Fleet.BUDGET + ", clock_timestamp(), clock_timestamp(),"
                    + " clock_timestamp() - interval '1 second')");
            try {
                for (int attempt = 1; attempt <= attempts; attempt++) {
                    int backend = awaitHolder(holder, deadline, instance);
                    fleet.pause(instance);
                    long stoppedAt = System.nanoTime();
                    String outcome = confirm(held, backend);
                    if (outcome != null) {
                        return new Caught(backend, attempt, stoppedAt, outcome);
                    }
                    fleet.resume(instance);
                }
            } finally {
                settling.execute("DELETE FROM " + PostgresFleetCoordinator.DEFAULT_TABLE + " WHERE member_id = '"
                        + SETTLING + "'");
            }
        }
        throw new AssertionError("Could not stop " + instance + " inside its renewal in " + attempts + " attempts");
    }

    private static int awaitHolder(PreparedStatement holder, long deadline, Instance instance) throws SQLException {
        while (System.nanoTime() - deadline < 0) {
            try (ResultSet row = holder.executeQuery()) {
                if (row.next()) {
                    return row.getInt(1);
                }
            }
        }
        throw new AssertionError("The server never showed " + instance + " holding the fleet table's lock");
    }

    /** @return how the catch was confirmed, or null when the renewal had let go of the lock first */
    private static String confirm(PreparedStatement held, int backend) throws SQLException {
        held.setInt(1, backend);
        long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try (ResultSet row = held.executeQuery()) {
                if (!row.next()) {
                    return "the server ended the frozen backend while it held the lock";
                }
                if (!row.getBoolean(2)) {
                    return null;
                }
                if (row.getBoolean(1)) {
                    return "the lock held, idle in transaction";
                }
            }
        }
        return null;
    }
}
