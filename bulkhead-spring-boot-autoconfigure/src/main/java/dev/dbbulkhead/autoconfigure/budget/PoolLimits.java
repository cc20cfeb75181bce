package dev.dbbulkhead.autoconfigure.budget;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.util.ClassUtils;

/**
 * What the budget checks need to know of a connection pool.
 *
 * @param name              the pool's name
 * @param maximumPoolSize   P, the most connections it opens
 * @param connectionTimeout how long {@code getConnection()} waits before it gives up
 */
public record PoolLimits(String name, int maximumPoolSize, Duration connectionTimeout) {

    private static final boolean HIKARI_PRESENT =
            ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", PoolLimits.class.getClassLoader());

    /** The limits of {@code dataSource} when it is (or wraps) a HikariCP pool; empty for any other kind. */
    public static Optional<PoolLimits> of(DataSource dataSource) {
        if (!HIKARI_PRESENT || dataSource == null) {
            return Optional.empty();
        }
        try {
            if (!dataSource.isWrapperFor(HikariDataSource.class)) {
                return Optional.empty();
            }
            HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);
            return Optional.of(new PoolLimits(hikari.getPoolName(), hikari.getMaximumPoolSize(),
                    Duration.ofMillis(hikari.getConnectionTimeout())));
        } catch (SQLException notAPool) {
            return Optional.empty();
        }
    }
}
