package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.jdbc.ungated.DetectionSettings;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionDetector;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionListener;
import dev.dbbulkhead.jdbc.ungated.WatchedDataSource;
import dev.dbbulkhead.transaction.DeadlinePoolWait;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;
import javax.sql.DataSource;

/**
 * The application's pools watched for work that escapes the gates, by DataSource bean name, each with its detector.
 * What the meters, the endpoint and the start-up report read.
 */
public final class WatchedPools {

    private final DetectionSettings settings;
    private final boolean watching;
    private final UngatedConnectionListener listener;
    /** By bean name, so that reports list the pools in one order whatever order the beans were made in. */
    private final Map<String, WatchedDataSource> pools = new ConcurrentSkipListMap<>();

    /**
     * @param settings how the detectors read, keep and answer a borrow outside every gate
     * @param watching false to watch nothing: {@link #watch} then hands every pool back as it is
     * @param listener told of each new call site of any pool
     */
    public WatchedPools(DetectionSettings settings, boolean watching, UngatedConnectionListener listener) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.watching = watching;
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Watches {@code pool}, the DataSource bean {@code beanName}; returns what the application should use instead. The
     * watch also asks a HikariCP pool for connections within the deadline of the asking thread's permit
     * ({@link DeadlinePoolWait}): the one decoration of the bean, which {@code mode=off} leaves as it is.
     */
    public DataSource watch(String beanName, DataSource pool) {
        if (!watching || pool instanceof WatchedDataSource) {
            return pool;
        }
        return pools.computeIfAbsent(beanName, name -> new WatchedDataSource(pool,
                new UngatedConnectionDetector(name, settings, listener), DeadlinePoolWait.forPool(pool)));
    }

    /** The detectors of the pools watched, by bean name. */
    public List<UngatedConnectionDetector> detectors() {
        return pools.values().stream().map(WatchedDataSource::detector).toList();
    }

    /** Whether {@code dataSource} is one of the pools watched. */
    public boolean isWatched(DataSource dataSource) {
        return pools.containsValue(dataSource);
    }

    /** {@code warn}, {@code fail} (borrows outside the gates are refused) or {@code off} (nothing watched). */
    public String mode() {
        return !watching ? "off" : settings.refuse() ? "fail" : "warn";
    }

    /** Whether any pool may be watched. */
    public boolean watching() {
        return watching;
    }

    /** The settings the detectors read borrows with. */
    public DetectionSettings settings() {
        return settings;
    }
}
