package dev.dbbulkhead.budget;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.util.ClassUtils;

/**
 * What the budget checks need to know of a connection pool.
 *
 * @param name              the pool's name
 * @param maximumPoolSize   P, the most connections it opens
 * @param connectionTimeout how long {@code getConnection()} waits before it gives up
 */
public record PoolSettings(String name, int maximumPoolSize, Duration connectionTimeout) {

    private static final boolean HIKARI_PRESENT =
            ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", PoolSettings.class.getClassLoader());

    /** The limits of {@code dataSource} when it is (or wraps) a HikariCP pool; empty for any other kind. */
    public static Optional<PoolSettings> of(DataSource dataSource) {
        return HIKARI_PRESENT && dataSource != null ? Hikari.limits(dataSource) : Optional.empty();
    }

    /** Loaded only when HikariCP is on the class path. */
    private static final class Hikari {

        static Optional<PoolSettings> limits(DataSource dataSource) {
            return Optional.ofNullable(DataSourceUnwrapper.unwrap(dataSource, HikariConfigMXBean.class,
                            HikariDataSource.class))
                    .map(pool -> new PoolSettings(pool.getPoolName(), pool.getMaximumPoolSize(),
                            Duration.ofMillis(pool.getConnectionTimeout())));
        }
    }
}
