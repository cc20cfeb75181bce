package dev.dbbulkhead.fleet.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;

/**
 * The coordinator's own pool of one connection, made from the application pool's settings, so that a renewal never
 * waits behind the application's work for a connection. It is one more connection per instance, outside the budget.
 */
public final class FleetConnections implements AutoCloseable {

    /** HikariCP refuses a shorter connection timeout. */
    private static final long LEAST_CONNECTION_TIMEOUT_MILLIS = 250;

    private final HikariDataSource pool;

    /**
     * @param application the application's pool, whose settings the coordinator's pool copies
     * @param heartbeat   how often the member renews: the longest a renewal waits for its connection
     * @param leaseTtl    how long a lease lasts unrenewed: a renewal on a dead socket gives up within it
     */
    public FleetConnections(HikariDataSource application, Duration heartbeat, Duration leaseTtl) {
        HikariConfig config = new HikariConfig();
        application.copyStateTo(config);
        config.setPoolName(application.getPoolName() + "-fleet");
        config.setMaximumPoolSize(1);
        config.setMinimumIdle(1);
        config.setMetricRegistry(null);
        config.setMetricsTrackerFactory(null);
        config.setHealthCheckRegistry(null);
        config.setRegisterMbeans(false);
        config.setConnectionTimeout(Math.max(LEAST_CONNECTION_TIMEOUT_MILLIS, heartbeat.toMillis()));
        if (config.getJdbcUrl() != null) {
            // A renewal stuck on a dead socket must give up within the lease it renews (pgJDBC counts whole
            // seconds). Set in the URL: the data source properties are shared with the application's pool.
            long seconds = Math.max(1, leaseTtl.toSeconds());
            config.setJdbcUrl(config.getJdbcUrl() + (config.getJdbcUrl().contains("?") ? "&" : "?")
                    + "socketTimeout=" + seconds + "&connectTimeout=" + seconds);
        }
        this.pool = new HikariDataSource(config);
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
