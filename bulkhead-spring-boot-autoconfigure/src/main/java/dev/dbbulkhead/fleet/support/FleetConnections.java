package dev.dbbulkhead.fleet.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's own pool of one connection, made from the application pool's settings, so that a renewal never
 * waits behind the application's work for a connection. It is one more connection per instance, outside the budget.
 * Its session carries a name of its own ({@link SessionNames#coordinator()}), so that fencing the member's pool
 * never ends the coordinator's session with it.
 */
public final class FleetConnections implements AutoCloseable {

    /** HikariCP refuses a shorter connection timeout. */
    private static final long LEAST_CONNECTION_TIMEOUT_MILLIS = 250;

    private final HikariDataSource pool;

    /**
     * @param application     the application's pool, whose settings the coordinator's pool copies
     * @param sessionName     the name of the coordinator's session on the server; null to keep the application's
     * @param heartbeat       how often the member renews: the longest a renewal waits for its connection
     * @param leaseTtl        how long a lease lasts unrenewed: a renewal on a dead socket gives up within it
     */
    public FleetConnections(HikariDataSource application, @Nullable String sessionName, Duration heartbeat,
                            Duration leaseTtl) {
        HikariConfig config = new HikariConfig();
        application.copyStateTo(config);
        if (application.getDataSource() instanceof ShareBoundConnections) {
            // That source is bound by the application pool's share; the coordinator opens its own from the URL.
            config.setDataSource(null);
        }
        // A copy: the data source properties object is otherwise shared with the application's pool.
        Properties properties = new Properties();
        properties.putAll(application.getDataSourceProperties());
        if (sessionName != null) {
            properties.setProperty("ApplicationName", sessionName);
        }
        config.setDataSourceProperties(properties);
        // A pool Spring Boot made has no name until it starts.
        config.setPoolName((application.getPoolName() == null ? "db-bulkhead" : application.getPoolName()) + "-fleet");
        config.setMaximumPoolSize(1);
        config.setMinimumIdle(1);
        config.setMetricRegistry(null);
        config.setMetricsTrackerFactory(null);
        config.setHealthCheckRegistry(null);
        config.setRegisterMbeans(false);
        config.setConnectionTimeout(Math.max(LEAST_CONNECTION_TIMEOUT_MILLIS, heartbeat.toMillis()));
        if (config.getJdbcUrl() != null) {
            // A renewal stuck on a dead socket must give up within the lease it renews (pgJDBC counts whole
            // seconds).
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
