package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.jdbc.ungated.WorkRules;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.util.CustomizableThreadCreator;

/**
 * Tells the {@code executor} rules of {@code db.bulkhead.work.rules} the prefix of their executors' thread names once
 * every singleton exists: a rule then matches the work on those threads (an {@code @Async} method, a task). An
 * executor that is no bean, or whose threads are not named by a prefix, stops start-up naming the rule's property.
 * Resolved after start-up rather than at the first borrow, which may come while the executor is not yet made.
 */
final class ExecutorThreadNames implements SmartInitializingSingleton {

    private final BulkheadProperties properties;
    private final ObjectProvider<WatchedPools> pools;
    private final BeanFactory beanFactory;

    ExecutorThreadNames(BulkheadProperties properties, ObjectProvider<WatchedPools> pools, BeanFactory beanFactory) {
        this.properties = properties;
        this.pools = pools;
        this.beanFactory = beanFactory;
    }

    @Override
    public void afterSingletonsInstantiated() {
        WatchedPools watched = pools.getIfAvailable();
        WatchedPools.AdmissionSettings admission = watched == null ? null : watched.admissionSettings();
        if (admission == null) {
            return;
        }
        WorkRules rules = admission.rules();
        Map<String, String> prefixes = new LinkedHashMap<>();
        // Every executor, for the reports of what only the default caught; those of the rules checked below.
        if (beanFactory instanceof ListableBeanFactory listable) {
            listable.getBeansOfType(CustomizableThreadCreator.class, false, false).forEach((name, executor) -> {
                if (!executor.getThreadNamePrefix().isBlank()) {
                    prefixes.put(name, executor.getThreadNamePrefix());
                }
            });
        }
        List<BulkheadProperties.WorkRule> written = properties.getWork().getRules();
        for (int i = 0; i < written.size(); i++) {
            String executor = written.get(i).getExecutor();
            if (executor != null) {
                prefixes.put(executor, threadNamePrefix(WorkClassification.PREFIX + "rules[" + i + "].executor",
                        executor));
            }
        }
        rules.executorsKnown(prefixes);
    }

    private String threadNamePrefix(String property, String executor) {
        Object bean;
        try {
            bean = beanFactory.getBean(executor);
        } catch (NoSuchBeanDefinitionException missing) {
            throw BulkheadConfigurationException.invalidProperty(property, executor, ALLOWED + ": there is no bean"
                    + " of that name");
        }
        if (!(bean instanceof CustomizableThreadCreator named) || named.getThreadNamePrefix().isBlank()) {
            throw BulkheadConfigurationException.invalidProperty(property, executor, ALLOWED + ": the bean is a "
                    + bean.getClass().getName());
        }
        return named.getThreadNamePrefix();
    }

    private static final String ALLOWED = "the name of a TaskExecutor or TaskScheduler bean whose threads are named"
            + " by a prefix (ThreadPoolTaskExecutor, SimpleAsyncTaskExecutor, ThreadPoolTaskScheduler,"
            + " SimpleAsyncTaskScheduler)";
}
