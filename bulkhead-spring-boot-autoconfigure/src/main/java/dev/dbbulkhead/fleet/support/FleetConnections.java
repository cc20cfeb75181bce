package dev.dbbulkhead.fleet.support;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.jdbc.side.SideConnections;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's own pool of one connection, made from the application pool's settings, so that a renewal never
 * waits behind the application's work for a connection. It is one more connection per instance, outside the budget.
 * Its session carries a name of its own ({@link SessionNames#coordinator()}), so that fencing the member's pool
 * never ends the coordinator's session with it.
 */
public final class FleetConnections implements AutoCloseable {

    private final HikariDataSource pool;

    /**
     * @param application     the application's pool, whose settings the coordinator's pool copies
     * @param sessionName     the name of the coordinator's session on the server; null to keep the application's
     * @param heartbeat       how often the member renews: the longest a renewal waits for its connection
     * @param leaseTtl        how long a lease lasts unrenewed: a renewal on a dead socket gives up within it
     */
    public FleetConnections(HikariDataSource application, @Nullable String sessionName, Duration heartbeat,
                            Duration leaseTtl) {
        // A renewal stuck on a dead socket must give up within the lease it renews.
        this.pool = SideConnections.copyOf(application, "fleet", sessionName, heartbeat, leaseTtl);
    }

    /** The coordinator's pool. */
    public HikariDataSource dataSource() {
        return pool;
    }

    @Override
    public void close() {
        pool.close();
    }
}
