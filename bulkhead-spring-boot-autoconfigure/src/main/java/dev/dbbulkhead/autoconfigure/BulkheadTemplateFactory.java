package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.autoconfigure.WorkloadSettings.Setting;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateListener;
import dev.dbbulkhead.limit.AdaptiveLimit;
import dev.dbbulkhead.spring.BulkheadTemplate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizers;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;

/**
 * Builds the {@link BulkheadTemplate} of each configured workload; the factory of the per-workload beans that
 * {@link WorkloadTemplateRegistrar} defines. Validates the defaults when it is created, so bad defaults fail
 * start-up even when no workload uses them.
 */
final class BulkheadTemplateFactory {

    private final BulkheadProperties properties;
    private final ListableBeanFactory beanFactory;
    private final ObjectProvider<PlatformTransactionManager> primaryTransactionManager;
    private final ObjectProvider<DataSource> primaryDataSource;
    private final ObjectProvider<TransactionManagerCustomizers> transactionManagerCustomizers;
    private final ObjectProvider<GateInstrumentation> instrumentations;
    private final AdaptiveLimits adaptiveLimits;
    /** One transaction manager per data source named without a transaction manager, shared by its workloads. */
    private final Map<String, PlatformTransactionManager> managersByDataSource = new ConcurrentHashMap<>();

    BulkheadTemplateFactory(BulkheadProperties properties, ListableBeanFactory beanFactory,
                            ObjectProvider<PlatformTransactionManager> primaryTransactionManager,
                            ObjectProvider<DataSource> primaryDataSource,
                            ObjectProvider<TransactionManagerCustomizers> transactionManagerCustomizers,
                            ObjectProvider<GateInstrumentation> instrumentations, AdaptiveLimits adaptiveLimits) {
        this.properties = properties;
        this.beanFactory = beanFactory;
        this.primaryTransactionManager = primaryTransactionManager;
        this.primaryDataSource = primaryDataSource;
        this.transactionManagerCustomizers = transactionManagerCustomizers;
        this.instrumentations = instrumentations;
        this.adaptiveLimits = adaptiveLimits;
        WorkloadSettings.ofDefaults(properties);
        // Used only by the HTTP 503 handler, yet checked here too: a bad value fails start-up with or without MVC.
        WorkloadSettings.retryAfterSeconds(null, properties);
    }

    /**
     * The template of workload {@code workload}, with its settings resolved and validated.
     *
     * @throws BulkheadConfigurationException naming the property of the first bad value
     */
    BulkheadTemplate create(String workload) {
        WorkloadSettings settings = WorkloadSettings.ofWorkload(workload, properties);
        WorkloadSettings.retryAfterSeconds(workload, properties);
        List<GateInstrumentation> instruments = instrumentations.orderedStream().toList();
        List<GateListener> listeners = new ArrayList<>(instruments.stream()
                .map(instrumentation -> instrumentation.listener(workload)).toList());
        // Only an adaptive workload gets the limit's listener: a fixed one pays nothing for the feature.
        AdaptiveLimit adaptive = settings.adaptiveLimit() == null ? null
                : adaptiveLimits.create(settings.adaptiveLimit(), settings.gateConfig().maxConcurrent());
        if (adaptive != null) {
            listeners.add(adaptive);
        }
        AdmissionGate gate = new AdmissionGate(workload, settings.gateConfig(), GateListener.composite(listeners));
        if (adaptive != null) {
            adaptiveLimits.steer(adaptive, gate);
        }
        instruments.forEach(instrumentation -> instrumentation.gateBuilt(gate));
        PlatformTransactionManager transactionManager = transactionManager(settings);
        return new BulkheadTemplate(gate, transactionManager, settings.transactionDefinition(), settings.limits(),
                dataSource(settings, transactionManager));
    }

    /**
     * The data source the workload's transactions use: the one its transaction manager manages, else the named
     * one, else the primary one.
     */
    private DataSource dataSource(WorkloadSettings settings, PlatformTransactionManager transactionManager) {
        if (transactionManager instanceof ResourceTransactionManager resourceManager
                && resourceManager.getResourceFactory() instanceof DataSource managed) {
            return managed;
        }
        if (settings.dataSource().value() != null) {
            return bean(settings.dataSource(), DataSource.class);
        }
        return primaryDataSource.getIfAvailable();
    }

    private PlatformTransactionManager transactionManager(WorkloadSettings settings) {
        if (settings.transactionManager().value() != null) {
            return bean(settings.transactionManager(), PlatformTransactionManager.class);
        }
        if (settings.dataSource().value() != null) {
            DataSource dataSource = bean(settings.dataSource(), DataSource.class);
            return managersByDataSource.computeIfAbsent(settings.dataSource().value(),
                    name -> newTransactionManager(dataSource));
        }
        return primaryTransactionManager.getObject();
    }

    private PlatformTransactionManager newTransactionManager(DataSource dataSource) {
        DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
        // Same customisation (execution listeners, spring.transaction.* defaults) as Boot's own manager gets.
        transactionManagerCustomizers.ifAvailable(customizers -> customizers.customize(manager));
        return manager;
    }

    private <T> T bean(Setting<String> name, Class<T> type) {
        return WorkloadSettings.validate(name, beanName -> {
            if (!beanFactory.containsBean(beanName) || !beanFactory.isTypeMatch(beanName, type)) {
                throw new IllegalArgumentException("must name a " + type.getSimpleName() + " bean; the "
                        + type.getSimpleName() + " beans are " + Arrays.toString(beanFactory.getBeanNamesForType(type)));
            }
            return beanFactory.getBean(beanName, type);
        });
    }
}
