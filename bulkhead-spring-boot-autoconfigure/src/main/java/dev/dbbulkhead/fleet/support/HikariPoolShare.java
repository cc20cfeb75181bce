package dev.dbbulkhead.fleet.support;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.dbbulkhead.fleet.ShareTarget;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Applies the instance's connections to its HikariCP pool at run time, so that the database sees the bound and not
 * only the gates: the maximum pool size becomes the share (never above the size configured) and the minimum idle
 * follows it down and back up (HikariCP opens connections up to a raised maximum as borrowers wait for them, and
 * refills to a raised minimum idle at its next housekeeping run). A lowered share closes only the connections above it — idle ones at once, busy ones
 * when they come back, found the next time the member asks what the pool holds — and keeps the rest, so the pool
 * never dips below its new share because of the shrink.
 */
public final class HikariPoolShare implements ShareTarget {

    /**
     * How long closing the excess waits for an idle connection it saw to be its to close, or for a busy one to come
     * back: a connection taken by the application meanwhile is closed when it returns, at a later look.
     */
    private static final long EXCESS_BORROW_MILLIS = 10;

    private final HikariDataSource pool;
    private final int configuredMaximum;
    private final int configuredMinimumIdle;

    /** @param pool the pool to apply shares to; the sizes it is configured with now are the most a share sets */
    public HikariPoolShare(HikariDataSource pool) {
        this(pool, pool.getMaximumPoolSize(), minimumIdleAsConfigured(pool));
    }

    /** The minimum idle HikariCP will keep: an unset or too large one reads as "keep the pool full". */
    static int minimumIdleAsConfigured(HikariDataSource pool) {
        int maximum = pool.getMaximumPoolSize();
        return pool.getMinimumIdle() < 0 || pool.getMinimumIdle() > maximum ? maximum : pool.getMinimumIdle();
    }

    HikariPoolShare(HikariDataSource pool, int configuredMaximum, int configuredMinimumIdle) {
        this.pool = pool;
        this.configuredMaximum = configuredMaximum;
        this.configuredMinimumIdle = configuredMinimumIdle;
    }

    @Override
    public boolean apply(int connections) {
        int maximum = Math.min(connections, configuredMaximum);
        int minimumIdle = Math.min(configuredMinimumIdle, maximum);
        // Never a moment with the minimum idle above the maximum.
        if (maximum >= pool.getMaximumPoolSize()) {
            pool.setMaximumPoolSize(maximum);
            pool.setMinimumIdle(minimumIdle);
        } else {
            pool.setMinimumIdle(minimumIdle);
            pool.setMaximumPoolSize(maximum);
        }
        closeExcess();
        return true;
    }

    /** The connections the pool holds, once those above its maximum that could be closed now are. */
    @Override
    public int connectionsInUse() {
        if (!(pool.getHikariPoolMXBean() instanceof HikariPool running)) {
            return 0;
        }
        closeExcess();
        return running.getTotalConnections();
    }

    /** The maximum size the pool was configured with: the most the instance asks the fleet for. */
    public int configuredMaximum() {
        return configuredMaximum;
    }

    /**
     * Closes connections above the maximum one at a time, each time against what the pool holds now — HikariCP may
     * retire one of its own meanwhile, and this must never take the pool below its maximum. HikariCP itself only
     * stops opening connections past a lowered maximum; evicting them all would empty a pool that may keep most.
     */
    private void closeExcess() {
        if (!(pool.getHikariPoolMXBean() instanceof HikariPool running)) {
            return;
        }
        for (int closed = 0; closed < configuredMaximum && running.getTotalConnections() > pool.getMaximumPoolSize()
                && running.getIdleConnections() > 0; closed++) {
            Connection excess;
            try {
                excess = running.getConnection(EXCESS_BORROW_MILLIS);
            } catch (SQLException takenMeanwhile) {
                return;
            }
            running.evictConnection(excess);
        }
    }
}
