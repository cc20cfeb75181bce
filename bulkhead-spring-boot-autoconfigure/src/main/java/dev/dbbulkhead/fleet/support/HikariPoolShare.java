package dev.dbbulkhead.fleet.support;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import dev.dbbulkhead.fleet.ShareTarget;

/**
 * Applies the instance's connections to its HikariCP pool at run time, so that the database sees the bound and not
 * only the gates: the maximum pool size becomes the share (never above the size configured), and when the pool
 * holds more than that its idle connections are closed at once and busy ones as they come back.
 */
public final class HikariPoolShare implements ShareTarget {

    private final HikariDataSource pool;
    private final int configuredMaximum;

    /** @param pool the pool to apply shares to; the size it is configured with now is the most a share sets */
    public HikariPoolShare(HikariDataSource pool) {
        this.pool = pool;
        this.configuredMaximum = pool.getMaximumPoolSize();
    }

    @Override
    public boolean apply(int connections) {
        int maximum = Math.min(connections, configuredMaximum);
        pool.setMaximumPoolSize(maximum);
        HikariPoolMXBean running = pool.getHikariPoolMXBean();
        if (running != null && running.getTotalConnections() > maximum) {
            // HikariCP only stops opening connections past a lowered maximum; evicting closes the excess.
            running.softEvictConnections();
        }
        return true;
    }

    /**
     * The connections the pool holds. Found above its maximum, it evicts again: a connection HikariCP was opening
     * while a lower share was applied joins the pool after that eviction, and HikariCP would keep it, idle, until its
     * maximum lifetime — and the member would report it in use, holding back the newcomer's share, as long.
     */
    @Override
    public int connectionsInUse() {
        HikariPoolMXBean running = pool.getHikariPoolMXBean();
        if (running == null) {
            return 0;
        }
        int total = running.getTotalConnections();
        if (total > pool.getMaximumPoolSize()) {
            running.softEvictConnections();
        }
        return total;
    }

    /** The maximum size the pool was configured with: the most the instance asks the fleet for. */
    public int configuredMaximum() {
        return configuredMaximum;
    }
}
