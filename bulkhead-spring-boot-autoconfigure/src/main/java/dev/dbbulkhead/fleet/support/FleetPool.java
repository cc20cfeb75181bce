package dev.dbbulkhead.fleet.support;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.DriverDataSource;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The HikariCP pool a fleet share caps, prepared before it opens its first connection, so that the server sees the
 * bound from the start:
 * <ul>
 *   <li>it starts within the member's floor — schema initialisation, a JPA bootstrap and anything else that runs
 *       before the member's first grant included — and grows only when a grant lets it ({@link HikariPoolShare});</li>
 *   <li>its sessions carry the member's {@link SessionNames#member() name} on the server, by which a renewal of
 *       another member ends them once this member's lease expired;</li>
 *   <li>it opens a connection only while it holds fewer than the member allows ({@link ShareBoundConnections}).</li>
 * </ul>
 * A pool that had started already is taken as it stands: none of this holds for it, and
 * {@link #preparedBeforeStart()} says so.
 */
public final class FleetPool {

    private static final String APPLICATION_NAME = "ApplicationName";

    private final HikariDataSource pool;
    private final int configuredMaximum;
    private final int configuredMinimumIdle;
    private final int floor;
    private final @Nullable SessionNames sessionNames;
    private final @Nullable ShareBoundConnections connections;

    private FleetPool(HikariDataSource pool, int configuredMaximum, int configuredMinimumIdle, int floor,
                      @Nullable SessionNames sessionNames, @Nullable ShareBoundConnections connections) {
        this.pool = pool;
        this.configuredMaximum = configuredMaximum;
        this.configuredMinimumIdle = configuredMinimumIdle;
        this.floor = floor;
        this.sessionNames = sessionNames;
        this.connections = connections;
    }

    /**
     * Prepares {@code pool} if it has not started, else takes it as it stands.
     *
     * @param floor the connections the member holds without a lease
     * @param tag   unique among the fleet's members, printable ASCII: names the member's sessions
     */
    public static FleetPool prepare(HikariDataSource pool, int floor, String tag) {
        int maximum = pool.getMaximumPoolSize();
        int minimumIdle = HikariPoolShare.minimumIdleAsConfigured(pool);
        int start = Math.min(floor, maximum);
        if (pool.getHikariPoolMXBean() != null) {
            return new FleetPool(pool, maximum, minimumIdle, start, null, null);
        }
        SessionNames names = SessionNames.of(pool.getDataSourceProperties().getProperty(APPLICATION_NAME), tag);
        pool.addDataSourceProperty(APPLICATION_NAME, names.member());
        ShareBoundConnections bound = null;
        String url = pool.getJdbcUrl();
        if (pool.getDataSource() == null && pool.getDataSourceClassName() == null && url != null) {
            // What HikariCP would open its connections with, asked first whether the share allows one more.
            bound = new ShareBoundConnections(new DriverDataSource(url, pool.getDriverClassName(),
                    pool.getDataSourceProperties(), pool.getUsername(), pool.getPassword()), pool, floor);
            pool.setDataSource(bound);
        }
        pool.setMinimumIdle(Math.min(minimumIdle, start));
        pool.setMaximumPoolSize(start);
        return new FleetPool(pool, maximum, minimumIdle, start, names, bound);
    }

    /** The pool. */
    public HikariDataSource pool() {
        return pool;
    }

    /** The maximum size it was configured with: the most any share sets, and the most the member asks for. */
    public int configuredMaximum() {
        return configuredMaximum;
    }

    /** The connections the pool starts on before any grant, within its configured maximum: the member's floor. */
    public int floor() {
        return floor;
    }

    /** Whether it was prepared before it started; false when it was taken as it stood. */
    public boolean preparedBeforeStart() {
        return sessionNames != null;
    }

    /** The names of the member's sessions on the server; null when the pool had started unnamed. */
    public @Nullable SessionNames sessionNames() {
        return sessionNames;
    }

    /** The share target that sizes this pool. */
    public HikariPoolShare share() {
        return new HikariPoolShare(pool, configuredMaximum, configuredMinimumIdle);
    }

    /** From now on the pool opens a connection only while it holds fewer than {@code allowance} says. */
    public void openConnectionsWithin(IntSupplier allowance) {
        if (connections != null) {
            connections.allowBy(allowance);
        }
    }

    /** Whether the pool opens its connections through the share's bound; false when it was given its own source. */
    public boolean opensWithinShare() {
        return connections != null;
    }
}
