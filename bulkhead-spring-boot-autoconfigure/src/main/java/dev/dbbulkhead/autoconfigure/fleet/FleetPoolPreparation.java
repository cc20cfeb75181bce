package dev.dbbulkhead.autoconfigure.fleet;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import dev.dbbulkhead.autoconfigure.ResolvedSettings;
import dev.dbbulkhead.fleet.support.FleetPool;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.jdbc.DataSourceUnwrapper;

/**
 * Prepares the primary data source's HikariCP pool for the fleet as soon as the bean exists, before anything —
 * schema initialisation, migrations, the JPA bootstrap — has borrowed a connection from it ({@link FleetPool}): it
 * then starts within the member's floor, with the member's session name.
 */
final class FleetPoolPreparation implements BeanPostProcessor {

    private final ObjectProvider<BulkheadProperties> properties;
    private final ConfigurableListableBeanFactory beanFactory;
    /** Names this member's sessions and ends its member id: unique among the fleet's members. */
    private final String tag = UUID.randomUUID().toString().substring(0, 8);
    private final AtomicReference<@Nullable FleetPool> prepared = new AtomicReference<>();

    FleetPoolPreparation(ObjectProvider<BulkheadProperties> properties, ConfigurableListableBeanFactory beanFactory) {
        this.properties = properties;
        this.beanFactory = beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof DataSource dataSource && prepared.get() == null && isPrimary(beanName)) {
            HikariDataSource pool = unwrapHikari(dataSource);
            if (pool != null) {
                prepared.compareAndSet(null, FleetPool.prepare(pool, floor(beanName, pool), tag));
            }
        }
        return bean;
    }

    /** The member's tag: names its sessions, ends its member id. */
    String tag() {
        return tag;
    }

    /** The fleet's view of {@code pool}: as prepared, or, if it was not, taken as it stands now. */
    FleetPool poolFor(HikariDataSource pool) {
        FleetPool made = prepared.get();
        if (made != null && made.pool() == pool) {
            return made;
        }
        prepared.compareAndSet(made, FleetPool.prepare(pool, floor(null, pool), tag));
        return Objects.requireNonNull(prepared.get(), "prepared pool");
    }

    /**
     * The floor the pool starts on: {@code db.bulkhead.fleet.floor}, else one connection per workload on it, so that
     * each gate keeps a B of 1. A workload counts unless it names another data source alone, by its own key or by
     * {@code db.bulkhead.defaults.data-source}: one that names a transaction manager may be on the pool, and a floor
     * too low would leave its gate without a connection. Kept within the pool's size here; the membership reports a
     * floor above it.
     */
    private int floor(@Nullable String beanName, HikariDataSource pool) {
        BulkheadProperties settings = properties.getObject();
        Integer configured = settings.getFleet().getFloor();
        long workloads = !settings.isEnabled() ? 0 : settings.getWorkloads().keySet().stream()
                .map(workload -> ResolvedSettings.transactionBeans(workload, settings))
                .filter(named -> named.transactionManager() != null || named.dataSource() == null
                        || named.dataSource().equals(beanName))
                .count();
        int floor = configured != null ? configured : (int) Math.max(1, workloads);
        return Math.max(1, Math.min(floor, pool.getMaximumPoolSize()));
    }

    private boolean isPrimary(String beanName) {
        String[] dataSources = beanFactory.getBeanNamesForType(DataSource.class, true, false);
        if (dataSources.length == 1) {
            return dataSources[0].equals(beanName);
        }
        return beanFactory.containsBeanDefinition(beanName) && beanFactory.getBeanDefinition(beanName).isPrimary();
    }

    static @Nullable HikariDataSource unwrapHikari(DataSource dataSource) {
        return DataSourceUnwrapper.unwrap(dataSource, HikariConfigMXBean.class, HikariDataSource.class);
    }
}
