package dev.dbbulkhead.autoconfigure;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizers;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.orm.jpa.EntityManagerFactoryInfo;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Which transaction manager runs a workload's transactions, and on which data source: the one named by
 * {@code transaction-manager}; else, for a {@code data-source} named alone, the application's JPA transaction
 * manager of that data source, or one of its own when JPA does not use it; else the primary one.
 */
final class WorkloadTransactionManagers {

    private static final boolean JPA_PRESENT = ClassUtils.isPresent("org.springframework.orm.jpa.JpaTransactionManager",
            WorkloadTransactionManagers.class.getClassLoader());

    private final ListableBeanFactory beanFactory;
    private final ObjectProvider<PlatformTransactionManager> primaryTransactionManager;
    private final ObjectProvider<DataSource> primaryDataSource;
    private final ObjectProvider<TransactionManagerCustomizers> transactionManagerCustomizers;
    /** One transaction manager per data source named without a transaction manager, shared by its workloads. */
    private final Map<String, PlatformTransactionManager> managersByDataSource = new ConcurrentHashMap<>();

    WorkloadTransactionManagers(ListableBeanFactory beanFactory,
                                ObjectProvider<PlatformTransactionManager> primaryTransactionManager,
                                ObjectProvider<DataSource> primaryDataSource,
                                ObjectProvider<TransactionManagerCustomizers> transactionManagerCustomizers) {
        this.beanFactory = beanFactory;
        this.primaryTransactionManager = primaryTransactionManager;
        this.primaryDataSource = primaryDataSource;
        this.transactionManagerCustomizers = transactionManagerCustomizers;
    }

    /**
     * The transaction manager of workload {@code workload}.
     *
     * @throws BulkheadConfigurationException when a named bean does not exist, when JPA uses the named data source
     *                                        but no single JPA transaction manager manages it, or when nothing is
     *                                        named and there is no single primary transaction manager
     */
    PlatformTransactionManager transactionManager(String workload, WorkloadSettings settings) {
        if (settings.transactionManager().value() != null) {
            return bean(named(settings.transactionManager()), PlatformTransactionManager.class);
        }
        if (settings.dataSource().value() != null) {
            Setting<String> dataSourceName = named(settings.dataSource());
            DataSource dataSource = bean(dataSourceName, DataSource.class);
            return managersByDataSource.computeIfAbsent(dataSourceName.value(),
                    name -> managerOf(workload, dataSourceName, dataSource));
        }
        PlatformTransactionManager primary = primaryTransactionManager.getIfUnique();
        if (primary == null) {
            throw BulkheadConfigurationException.noTransactionManager(workload,
                    Arrays.asList(beanFactory.getBeanNamesForType(PlatformTransactionManager.class)));
        }
        return primary;
    }

    /**
     * The data source the workload's transactions use: the one its transaction manager manages (a JPA transaction
     * manager's included), else the named one, else the primary one. Budgets and the endpoint read its pool.
     */
    @Nullable DataSource dataSource(WorkloadSettings settings, PlatformTransactionManager transactionManager) {
        DataSource managed = dataSourceOf(transactionManager);
        if (managed != null) {
            return managed;
        }
        if (settings.dataSource().value() != null) {
            return bean(named(settings.dataSource()), DataSource.class);
        }
        return primaryDataSource.getIfUnique();
    }

    /** The data source whose connections {@code transactionManager} uses, or {@code null} when it cannot tell. */
    private static @Nullable DataSource dataSourceOf(PlatformTransactionManager transactionManager) {
        if (transactionManager instanceof ResourceTransactionManager resourceManager
                && resourceManager.getResourceFactory() instanceof DataSource managed) {
            return managed;
        }
        return JPA_PRESENT ? Jpa.dataSourceOf(transactionManager) : null;
    }

    private PlatformTransactionManager managerOf(String workload, Setting<String> name, DataSource dataSource) {
        if (JPA_PRESENT) {
            List<String> jpaManagers = Jpa.managersOf(beanFactory, dataSource);
            if (jpaManagers.size() == 1) {
                return beanFactory.getBean(jpaManagers.get(0), PlatformTransactionManager.class);
            }
            if (!jpaManagers.isEmpty() || Jpa.isUsedByJpa(beanFactory, dataSource)) {
                // A JDBC transaction manager of our own would not see the work of JPA's EntityManager.
                throw BulkheadConfigurationException.dataSourceOfJpa(workload, name.property(), name.value(),
                        jpaManagers);
            }
        }
        DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
        // Same customisation (execution listeners, spring.transaction.* defaults) as Boot's own manager gets.
        transactionManagerCustomizers.ifAvailable(customizers -> customizers.customize(manager));
        return manager;
    }

    /** A bean-name setting known to be set: asked for only after its value was seen not to be null. */
    private static Setting<String> named(Setting<@Nullable String> name) {
        return new Setting<>(name.property(), Objects.requireNonNull(name.value(), name.property()));
    }

    private <T> T bean(Setting<String> name, Class<T> type) {
        return name.validate(beanName -> {
            if (!beanFactory.containsBean(beanName) || !beanFactory.isTypeMatch(beanName, type)) {
                throw new IllegalArgumentException("must name a " + type.getSimpleName() + " bean; the "
                        + type.getSimpleName() + " beans are " + Arrays.toString(beanFactory.getBeanNamesForType(type)));
            }
            return beanFactory.getBean(beanName, type);
        });
    }

    /** Kept apart so that spring-orm is loaded only when the application has it. */
    private static final class Jpa {

        static @Nullable DataSource dataSourceOf(PlatformTransactionManager transactionManager) {
            return transactionManager instanceof JpaTransactionManager jpa ? jpa.getDataSource() : null;
        }

        /** The names of the JPA transaction manager beans whose data source is {@code dataSource}. */
        static List<String> managersOf(ListableBeanFactory beanFactory, DataSource dataSource) {
            return beanFactory.getBeansOfType(JpaTransactionManager.class).entrySet().stream()
                    .filter(manager -> manager.getValue().getDataSource() == dataSource)
                    .map(Map.Entry::getKey).toList();
        }

        /** Whether an entity manager factory of the application works on {@code dataSource}. */
        static boolean isUsedByJpa(ListableBeanFactory beanFactory, DataSource dataSource) {
            return beanFactory.getBeansOfType(EntityManagerFactoryInfo.class).values().stream()
                    .anyMatch(factory -> factory.getDataSource() == dataSource);
        }
    }
}
