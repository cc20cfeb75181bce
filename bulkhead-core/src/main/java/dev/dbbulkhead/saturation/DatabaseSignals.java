package dev.dbbulkhead.saturation;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One sample of what the database's server says of its own saturation, taken by one short query.
 *
 * @param sampledAtNanos when the sample was read, on this JVM's {@link System#nanoTime()}
 * @param activeSessions the server's sessions of this database running a statement, other than the sampler's own,
 *                       by what they waited for at that instant; a class no session was in is absent
 * @param oldestLockWait how long the longest lock wait of a session of this database had lasted; {@code null} when no
 *                       session waited for a lock, or when the server does not say (before PostgreSQL 14)
 * @param commits        transactions committed in this database since the server's statistics were last reset
 * @param rollbacks      transactions rolled back in this database, likewise
 * @param deadlocks      deadlocks detected in this database, likewise
 * @param replicaLag     the largest replay lag of the server's replicas; {@code null} when it has none, or none is
 *                       visible to the sampler's role
 * @param queryTime      how long the sample's query took, from sending it to reading its row: the sampler's own cost
 * @param nextTransactionId the server's next transaction id (of the whole server, every database): the ids between two
 *                       samples are the transactions that wrote in between, counted exactly, where the server's
 *                       commit counts arrive in bursts as each session reports them; {@link #NOT_READ} when not read
 * @param sessionsInTransaction the server's sessions of this database, other than the sampler's own, that run a
 *                       statement or hold a transaction open between two: every active one, and those waiting for
 *                       their client in mid-transaction, which a count of the active ones misses; {@link #NOT_READ}
 *                       when not read
 */
public record DatabaseSignals(long sampledAtNanos, Map<WaitClass, Integer> activeSessions,
                              @Nullable Duration oldestLockWait, long commits, long rollbacks, long deadlocks,
                              @Nullable Duration replicaLag, Duration queryTime, long nextTransactionId,
                              int sessionsInTransaction) {

    /** The value of a count the sample did not read. */
    public static final long NOT_READ = -1;

    public DatabaseSignals {
        Objects.requireNonNull(queryTime, "queryTime");
        EnumMap<WaitClass, Integer> copy = new EnumMap<>(WaitClass.class);
        activeSessions.forEach((waitClass, sessions) -> {
            if (sessions < 0) {
                throw new IllegalArgumentException("sessions of " + waitClass + " must be at least 0, was " + sessions);
            }
            if (sessions > 0) {
                copy.put(waitClass, sessions);
            }
        });
        activeSessions = Collections.unmodifiableMap(copy);
        if (nextTransactionId < NOT_READ) {
            throw new IllegalArgumentException("nextTransactionId must be at least 0, or NOT_READ, was "
                    + nextTransactionId);
        }
        if (sessionsInTransaction < NOT_READ) {
            throw new IllegalArgumentException("sessionsInTransaction must be at least 0, or NOT_READ, was "
                    + sessionsInTransaction);
        }
    }

    /** A sample without the server's next transaction id, nor its sessions in a transaction. */
    DatabaseSignals(long sampledAtNanos, Map<WaitClass, Integer> activeSessions,
                    @Nullable Duration oldestLockWait, long commits, long rollbacks, long deadlocks,
                    @Nullable Duration replicaLag, Duration queryTime) {
        this(sampledAtNanos, activeSessions, oldestLockWait, commits, rollbacks, deadlocks, replicaLag, queryTime,
                NOT_READ, (int) NOT_READ);
    }

    /** Active sessions that were in {@code waitClass}. */
    public int active(WaitClass waitClass) {
        return activeSessions.getOrDefault(waitClass, 0);
    }

    /** All active sessions of the database, the sampler's own not counted. */
    public int active() {
        return activeSessions.values().stream().mapToInt(Integer::intValue).sum();
    }

    /**
     * The sessions of the database at work: those in a transaction, between its statements too, when read, else the
     * active ones; never fewer than the active ones.
     */
    public int inTransaction() {
        return Math.max(active(), sessionsInTransaction);
    }

    /** Sessions waiting for a heavyweight lock. */
    public int lockWaiters() {
        return active(WaitClass.LOCK);
    }
}
