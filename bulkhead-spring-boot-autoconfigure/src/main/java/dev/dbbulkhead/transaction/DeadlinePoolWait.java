package dev.dbbulkhead.transaction;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Permit;
import dev.dbbulkhead.jdbc.ConnectionRequest;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import javax.sql.DataSource;
import org.springframework.util.ClassUtils;

/**
 * How a HikariCP pool the gates admit to is asked for a connection: a thread holding a permit with a deadline waits
 * at most what is left of it, never longer than the pool's {@code connectionTimeout}; every other request is the
 * pool's own {@code getConnection()}. Without this the pool wait lies outside the deadline: callers that do not pass
 * the gates can hold every connection, and an admitted operation would then wait the whole connection timeout.
 *
 * <p>The pool is asked as {@code HikariDataSource.getConnection()} asks it — {@code HikariPool.getConnection(timeout)},
 * only with the smaller timeout — so a connection is handed out once or not at all, and the pool's metrics, leak
 * detection and waiter count see an ordinary borrow. A pool not started yet, suspended or closed is asked the plain
 * way: it starts, waits or refuses as HikariCP decides. Other pools keep their own wait: set their acquisition
 * timeout to at most the deadline.
 */
public final class DeadlinePoolWait implements ConnectionRequest {

    private static final boolean HIKARI_PRESENT =
            ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", DeadlinePoolWait.class.getClassLoader());

    private static final DeadlinePoolWait INSTANCE = new DeadlinePoolWait();

    private DeadlinePoolWait() {
    }

    /**
     * How {@code pool} should be asked for connections: within the asking permit's deadline when it is a
     * {@code HikariDataSource} of HikariCP's own class; {@link ConnectionRequest#PLAIN} for any other data source,
     * including a subclass, whose {@code getConnection()} may do more than borrow.
     */
    public static ConnectionRequest forPool(DataSource pool) {
        return HIKARI_PRESENT && Hikari.isPlainPool(pool) ? INSTANCE : ConnectionRequest.PLAIN;
    }

    /**
     * Returns a connection of {@code target}, a {@code HikariDataSource}, or throws:
     * <ul>
     *   <li>an {@link SQLTransientConnectionException} of db-bulkhead's, HikariCP's timeout its cause, when no
     *       connection came free within what was left of the permit's deadline, shorter than the pool's connection
     *       timeout: {@link BulkheadTemplate} answers it with {@link DeadlineExceededException};</li>
     *   <li>whatever HikariCP throws otherwise: its own timeout after {@code connectionTimeout} for a thread without
     *       a deadline or with more left than that, an interrupt, a closed pool.</li>
     * </ul>
     */
    /**
     * How a second connection of a thread that already holds one under its place is asked of {@code pool} (a
     * {@code REQUIRES_NEW} transaction nested in an admitted one): a connection free right now, or a
     * {@link SQLTransientConnectionException} at once, from a {@code HikariDataSource} of HikariCP's own class that is
     * running; the pool's own {@code getConnection()} otherwise. A thread holding a place and a connection never waits
     * for another: threads that did could each wait for a connection another holds.
     */
    public static ConnectionRequest atOnceFor(DataSource pool) {
        return HIKARI_PRESENT && Hikari.isPlainPool(pool) ? Hikari::connectionFreeNow : ConnectionRequest.PLAIN;
    }

    @Override
    public Connection connect(DataSource target) throws SQLException {
        long remainingNanos = AdmissionGate.currentPermitRemainingNanos();
        return remainingNanos == Permit.NO_DEADLINE ? target.getConnection()
                : Hikari.connectionWithin(target, remainingNanos);
    }

    @Override
    public String toString() {
        return "DeadlinePoolWait";
    }

    /** Loaded only when HikariCP is on the class path. */
    private static final class Hikari {

        static boolean isPlainPool(DataSource pool) {
            return pool.getClass() == HikariDataSource.class;
        }

        static Connection connectionFreeNow(DataSource target) throws SQLException {
            HikariDataSource dataSource = (HikariDataSource) target;
            if (dataSource.isClosed() || !(dataSource.getHikariPoolMXBean() instanceof HikariPool pool)
                    || pool.poolState != HikariPool.POOL_NORMAL) {
                return dataSource.getConnection();
            }
            try {
                // A zero timeout takes an idle connection or none: HikariCP's bag does not wait for a return.
                return pool.getConnection(0L);
            } catch (SQLTransientConnectionException noneFree) {
                throw new SQLTransientConnectionException("No connection of pool '" + dataSource.getPoolName()
                        + "' was free for a second connection of a thread that already holds one under its place (a"
                        + " REQUIRES_NEW transaction nested in an admitted one): such a connection is taken only when"
                        + " one is free, so that threads holding connections never wait for each other's. Give the"
                        + " pool more connections than the workloads' places, or do not nest the transaction.",
                        noneFree.getSQLState(), noneFree);
            }
        }

        static Connection connectionWithin(DataSource target, long remainingNanos) throws SQLException {
            HikariDataSource dataSource = (HikariDataSource) target;
            long connectionTimeout = dataSource.getConnectionTimeout();
            // Rounded up, so that a wait this bound ends has used up the deadline; 1 ms once it is spent.
            long boundMillis = TransactionTimeouts.remainingMillis(remainingNanos);
            // Null until a lazily started pool's first borrow; not normal while suspended or shutting down: what
            // HikariDataSource.getConnection() does with those is HikariCP's to decide.
            if (boundMillis >= connectionTimeout || dataSource.isClosed()
                    || !(dataSource.getHikariPoolMXBean() instanceof HikariPool pool)
                    || pool.poolState != HikariPool.POOL_NORMAL) {
                return dataSource.getConnection();
            }
            try {
                return pool.getConnection(boundMillis);
            } catch (SQLTransientConnectionException timedOut) {
                // HikariPool.getConnection(long) throws this type only when its wait ran out.
                throw new PoolWaitOutOfDeadline(dataSource.getPoolName(), boundMillis, connectionTimeout, timedOut);
            }
        }
    }
}
