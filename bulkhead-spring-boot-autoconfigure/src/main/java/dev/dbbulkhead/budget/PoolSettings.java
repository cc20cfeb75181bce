package dev.dbbulkhead.budget;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
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
        return HIKARI_PRESENT && dataSource != null ? Hikari.limits(dataSource, null) : Optional.empty();
    }

    /**
     * The limits of {@code dataSource} when it is (or wraps) a HikariCP pool, named {@code beanName} unless its pool
     * name was set: HikariCP has no name for a pool before it starts, and then one of its own that the application's
     * configuration never mentions. Empty for any other kind of pool.
     */
    public static Optional<PoolSettings> of(DataSource dataSource, @Nullable String beanName) {
        return HIKARI_PRESENT && dataSource != null ? Hikari.limits(dataSource, beanName) : Optional.empty();
    }

    /** The name HikariCP gives a pool whose pool-name is not set, once the pool starts. */
    private static final Pattern GENERATED_NAME = Pattern.compile("HikariPool-\\d+");

    /** Loaded only when HikariCP is on the class path. */
    private static final class Hikari {

        static Optional<PoolSettings> limits(DataSource dataSource, @Nullable String beanName) {
            return Optional.ofNullable(DataSourceUnwrapper.unwrap(dataSource, HikariConfigMXBean.class,
                            HikariDataSource.class))
                    .map(pool -> new PoolSettings(name(pool.getPoolName(), beanName), pool.getMaximumPoolSize(),
                            Duration.ofMillis(pool.getConnectionTimeout())));
        }

        private static String name(@Nullable String poolName, @Nullable String beanName) {
            if (beanName != null && (poolName == null || GENERATED_NAME.matcher(poolName).matches())) {
                return beanName;
            }
            return String.valueOf(poolName);
        }
    }
}
