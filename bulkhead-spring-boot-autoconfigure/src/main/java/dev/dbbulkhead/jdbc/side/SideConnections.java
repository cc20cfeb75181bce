package dev.dbbulkhead.jdbc.side;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * A pool of one connection made from the application pool's settings, for the starter's own work on the database
 * (the fleet's renewals, the database's signals): that work never waits behind the application's for a connection,
 * and is bounded on a dead socket. One more connection per instance, outside every gate's budget.
 */
public final class SideConnections {

    /** HikariCP refuses a shorter connection timeout. */
    private static final long LEAST_CONNECTION_TIMEOUT_MILLIS = 250;

    private SideConnections() {
    }

    /**
     * A new pool of one connection, opened at once, with the settings of {@code application}.
     *
     * @param application       the application's pool, whose settings are copied
     * @param purpose           what the pool is for, appended to the application pool's name
     * @param sessionName       the name of the session on the server; null to keep the application's
     * @param connectionTimeout the longest a borrow waits (at least 250 ms, HikariCP's least)
     * @param socketTimeout     the longest a statement waits on a silent socket, in whole seconds (at least one, as
     *                          pgJDBC counts them)
     */
    public static HikariDataSource copyOf(HikariDataSource application, String purpose, @Nullable String sessionName,
                                          Duration connectionTimeout, Duration socketTimeout) {
        HikariConfig config = new HikariConfig();
        application.copyStateTo(config);
        if (application.getDataSource() instanceof PoolBoundDataSource) {
            // That source is bound to the application pool alone; the side pool opens its own from the URL.
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
        config.setPoolName((application.getPoolName() == null ? "db-bulkhead" : application.getPoolName()) + "-"
                + purpose);
        config.setMaximumPoolSize(1);
        config.setMinimumIdle(1);
        config.setMetricRegistry(null);
        config.setMetricsTrackerFactory(null);
        config.setHealthCheckRegistry(null);
        config.setRegisterMbeans(false);
        // A side pool's user may keep its one connection between uses: that is not a leak to report.
        config.setLeakDetectionThreshold(0);
        config.setConnectionTimeout(Math.max(LEAST_CONNECTION_TIMEOUT_MILLIS, connectionTimeout.toMillis()));
        if (config.getJdbcUrl() != null) {
            long seconds = Math.max(1, socketTimeout.toSeconds());
            config.setJdbcUrl(config.getJdbcUrl() + (config.getJdbcUrl().contains("?") ? "&" : "?")
                    + "socketTimeout=" + seconds + "&connectTimeout=" + seconds);
        }
        return new HikariDataSource(config);
    }
}
