package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateInstrumentation;
import dev.dbbulkhead.gate.GateListener;
import dev.dbbulkhead.limit.AdaptiveLimit;
import dev.dbbulkhead.metrics.KeyTallies;
import dev.dbbulkhead.metrics.KeyTally;
import dev.dbbulkhead.transaction.AdaptiveLimits;
import dev.dbbulkhead.retry.RetryBudget;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import dev.dbbulkhead.transaction.WorkloadRetries;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizers;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Builds the {@link BulkheadTemplate} of each configured workload; the factory of the per-workload beans that
 * {@link WorkloadTemplateRegistrar} defines. Validates the defaults when it is created, so bad defaults fail
 * start-up even when no workload uses them; warns of an CoDel queue discipline that has no queue to act on.
 */
final class BulkheadTemplateFactory {

    private static final Log logger = LogFactory.getLog(BulkheadTemplateFactory.class);

    private final BulkheadProperties properties;
    private final ListableBeanFactory beanFactory;
    private final WorkloadTransactionManagers transactionManagers;
    private final ObjectProvider<GateInstrumentation> instrumentations;
    private final AdaptiveLimits adaptiveLimits;
    private final LendingPools lendingPools;
    private final KeyTallies keyTallies;

    BulkheadTemplateFactory(BulkheadProperties properties, ListableBeanFactory beanFactory,
                            ObjectProvider<PlatformTransactionManager> primaryTransactionManager,
                            ObjectProvider<DataSource> primaryDataSource,
                            ObjectProvider<TransactionManagerCustomizers> transactionManagerCustomizers,
                            ObjectProvider<GateInstrumentation> instrumentations, AdaptiveLimits adaptiveLimits,
                            KeyTallies keyTallies) {
        this.properties = properties;
        this.beanFactory = beanFactory;
        this.transactionManagers = new WorkloadTransactionManagers(beanFactory, primaryTransactionManager,
                primaryDataSource, transactionManagerCustomizers);
        this.instrumentations = instrumentations;
        this.adaptiveLimits = adaptiveLimits;
        this.lendingPools = new LendingPools(properties, this::dataSourceOf);
        this.keyTallies = keyTallies;
        // Every workload's values at once, the Retry-After too (used only by the HTTP 503 handler, yet checked here:
        // a bad value fails start-up with or without MVC), so that one start-up reports every mistake.
        WorkloadSettings.checkAll(properties);
        // Warnings, not failures: defaults may choose codel for workloads that have no queue on purpose, and a resize
        // can give a workload the places its settings need. One report for all, as for the mistakes.
        List<String> warnings = WorkloadSettings.settingsThatCannotAct(properties);
        if (!warnings.isEmpty()) {
            logger.warn("db-bulkhead settings that cannot act as written (" + warnings.size() + "):\n  - "
                    + String.join("\n  - ", warnings));
        }
    }

    /**
     * The template of workload {@code workload}, with its settings resolved and validated.
     *
     * @throws BulkheadConfigurationException naming the property of the first bad value
     */
    BulkheadTemplate create(String workload) {
        WorkloadSettings settings = WorkloadSettings.ofWorkload(workload, properties);
        WorkloadSettings.retryAfterSeconds(workload, properties);
        WorkloadSettings.retryAfterJitterSeconds(workload, properties);
        // Checked here, where every workload passes, so that a limit without the signals it follows stops start-up.
        WorkloadSettings.databaseLimit(workload, properties);
        List<GateInstrumentation> instruments = instrumentations.orderedStream().toList();
        List<GateListener> listeners = new ArrayList<>(instruments.stream()
                .map(instrumentation -> instrumentation.listener(workload)).toList());
        // Only an adaptive workload gets the limit's listener: a fixed one pays nothing for the feature.
        AdaptiveLimit adaptive = settings.adaptiveLimit() == null ? null
                : adaptiveLimits.create(settings.adaptiveLimit(), settings.gateConfig().maxConcurrent());
        if (adaptive != null) {
            listeners.add(adaptive);
        }
        // Only a workload with fair shares counts its keys: the others pay nothing per operation for it.
        KeyTally tally = settings.gateConfig().admissionRules().fairShares()
                ? new KeyTally(workload, settings.meteredKeys(), settings.gateConfig().admissionRules().keylessKey())
                : null;
        if (tally != null) {
            listeners.add(tally);
            keyTallies.add(tally);
        }
        PlatformTransactionManager transactionManager = transactionManagers.transactionManager(workload, settings);
        @Nullable DataSource dataSource = transactionManagers.dataSource(settings, transactionManager);
        GateConfig gateConfig = settings.gateConfig().toBuilder()
                .lending(lendingPools.lendingOf(workload, settings, dataSource)).build();
        AdmissionGate gate = new AdmissionGate(workload, gateConfig, GateListener.composite(listeners));
        if (adaptive != null) {
            adaptiveLimits.steer(adaptive, gate);
        }
        instruments.forEach(instrumentation -> instrumentation.gateBuilt(gate));
        // Every workload gets its budget, so that Spring's retriers can ask it even where the template does not retry.
        return new BulkheadTemplate(gate, transactionManager, settings.transactionDefinition(), settings.timeouts(),
                dataSource)
                .withRetries(new WorkloadRetries(settings.maxAttempts(), new RetryBudget(settings.retryBudget())));
    }

    /** The data source of another workload's transactions, resolved as its own template would resolve it. */
    private @Nullable DataSource dataSourceOf(String workload) {
        WorkloadSettings settings = WorkloadSettings.ofWorkload(workload, properties);
        return transactionManagers.dataSource(settings, transactionManagers.transactionManager(workload, settings));
    }
}
