package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.jdbc.ungated.WatchedDataSource;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;

/**
 * Puts each DataSource bean that the gates admit to behind a {@link WatchedDataSource} as it is made, after its
 * initialisation: everything that injects the bean — the transaction managers, JPA, JdbcTemplate, the health
 * indicator — then borrows through the watch. The bean keeps its type ({@link WatchedPools#watch}): code that injects,
 * looks up or casts it as the pool's own class ({@code HikariDataSource}) works as without the watch.
 */
public final class WatchedPoolPostProcessor implements BeanPostProcessor, Ordered {

    private final Supplier<Set<String>> gatedDataSources;
    private final ObjectProvider<WatchedPools> pools;
    /** Read once, when the first DataSource bean is made: the configuration is bound by then. */
    private volatile @Nullable Set<String> names;

    /**
     * @param gatedDataSources the bean names of the DataSources the gates admit to
     * @param pools            the pools watched, asked for when the first of them is made
     */
    public WatchedPoolPostProcessor(Supplier<Set<String>> gatedDataSources, ObjectProvider<WatchedPools> pools) {
        this.gatedDataSources = gatedDataSources;
        this.pools = pools;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof DataSource dataSource) || bean instanceof WatchedDataSource
                || ScopedProxyUtils.isScopedTarget(beanName) || !gated().contains(beanName)) {
            return bean;
        }
        return pools.getObject().watch(beanName, dataSource);
    }

    /**
     * First of the post-processors that order themselves: the watch stands right in front of the pool (so that it
     * knows a HikariCP pool as such), and every later one — the fleet's pool preparation, a decorator of the
     * application's — is handed the bean the application will use, never the pool behind it.
     */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    private Set<String> gated() {
        Set<String> known = names;
        if (known == null) {
            known = Set.copyOf(gatedDataSources.get());
            names = known;
        }
        return known;
    }
}
