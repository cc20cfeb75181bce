package dev.dbbulkhead.fleet.support;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import dev.dbbulkhead.jdbc.ConnectionRequest;
import dev.dbbulkhead.jdbc.DataSourceDecorator;
import dev.dbbulkhead.jdbc.side.PoolBoundDataSource;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Objects;
import java.util.function.IntSupplier;
import javax.sql.DataSource;

/**
 * Where the coordinated HikariCP pool opens its connections: the driver, asked first how many connections the
 * member may hold right now. Opening one is refused while the pool already holds as many — the member's lease is
 * checked at that moment ({@link dev.dbbulkhead.fleet.FleetMember#connectionsAllowed()}), so that an instance
 * resumed after a pause past its lease opens none on a share it no longer holds, and a connection HikariCP had begun
 * to open while a lower share was applied does not join the pool above it. Asked only when a connection is opened,
 * never when one is borrowed. Bound to its pool alone: the starter's side pools copied from that pool open their
 * connections from the URL ({@link PoolBoundDataSource}).
 */
final class ShareBoundConnections extends DataSourceDecorator implements PoolBoundDataSource {

    private final HikariDataSource pool;
    private volatile IntSupplier allowance;

    /**
     * @param driver the driver's connections, as HikariCP would have opened them
     * @param pool   the pool they are opened for
     * @param floor  the connections allowed until {@link #allowBy(IntSupplier)} hands the count to the member
     */
    ShareBoundConnections(DataSource driver, HikariDataSource pool, int floor) {
        super(driver, ConnectionRequest.PLAIN);
        this.pool = Objects.requireNonNull(pool, "pool");
        this.allowance = () -> floor;
    }

    /** From now on {@code allowance} says how many connections the pool may hold. */
    void allowBy(IntSupplier allowance) {
        this.allowance = Objects.requireNonNull(allowance, "allowance");
    }

    @Override
    protected void beforeConnection() throws SQLException {
        HikariPoolMXBean running = pool.getHikariPoolMXBean();
        int held = running == null ? 0 : running.getTotalConnections();
        int allowed = allowance.getAsInt();
        if (held >= allowed) {
            throw new SQLTransientConnectionException("Pool " + pool.getPoolName() + " holds " + held
                    + " connections, as many as this instance's fleet share allows now (" + allowed
                    + "); no other is opened until the share grows");
        }
    }
}
