package dev.dbbulkhead.autoconfigure;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import javax.sql.DataSource;

/**
 * The bean names of the DataSources the configured workloads admit to, read from the configuration and the bean
 * definitions alone, so that they can be known while the DataSource beans are being made: each one a workload names
 * with {@code data-source} (its own or the defaults'), and the primary one for every workload that names neither a
 * data source nor a transaction manager. A workload that names only a transaction manager admits to that manager's
 * DataSource, which cannot be known before the manager is made: the start-up report names it.
 */
final class GatedDataSources {

    private GatedDataSources() {
    }

    static Set<String> names(BulkheadProperties properties, ListableBeanFactory beanFactory) {
        if (properties.getUngated().getMode() == BulkheadProperties.UngatedMode.OFF) {
            return Set.of();
        }
        BulkheadProperties.Workload defaults = properties.getDefaults();
        Set<String> names = new LinkedHashSet<>();
        for (BulkheadProperties.Workload workload : properties.getWorkloads().values()) {
            String dataSource = either(workload.getDataSource(), defaults.getDataSource());
            if (dataSource != null) {
                names.add(dataSource);
            } else if (either(workload.getTransactionManager(), defaults.getTransactionManager()) == null) {
                String primary = primary(beanFactory);
                if (primary != null) {
                    names.add(primary);
                }
            }
        }
        return names;
    }

    private static @Nullable String either(@Nullable String own, @Nullable String fallback) {
        return own != null ? own : fallback;
    }

    /**
     * The only DataSource bean that is a candidate for injection, or the only primary one, as Spring would inject
     * it; none when neither is there.
     */
    private static @Nullable String primary(ListableBeanFactory beanFactory) {
        List<String> candidates = Arrays.stream(beanFactory.getBeanNamesForType(DataSource.class, true, false))
                .filter(name -> !ScopedProxyUtils.isScopedTarget(name))
                .filter(name -> definition(beanFactory, name).map(BeanDefinition::isAutowireCandidate).orElse(true))
                .toList();
        if (candidates.size() == 1) {
            return candidates.get(0);
        }
        List<String> primaries = candidates.stream()
                .filter(name -> definition(beanFactory, name).map(BeanDefinition::isPrimary).orElse(false)).toList();
        return primaries.size() == 1 ? primaries.get(0) : null;
    }

    private static Optional<BeanDefinition> definition(ListableBeanFactory beanFactory, String name) {
        return beanFactory instanceof ConfigurableListableBeanFactory configurable
                && configurable.containsBeanDefinition(name)
                ? Optional.of(configurable.getMergedBeanDefinition(name)) : Optional.empty();
    }
}
