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
 * {@link WorkloadTemplateRegistrar} defines, from the settings {@link ResolvedWorkloads} resolved once. Warns of
 * the settings that cannot act as written, such as a CoDel queue discipline that has no queue to act on.
 */
final class BulkheadTemplateFactory {

    private static final Log logger = LogFactory.getLog(BulkheadTemplateFactory.class);

    private final ResolvedWorkloads workloads;
    private final ListableBeanFactory beanFactory;
    private final WorkloadTransactionManagers transactionManagers;
    private final ObjectProvider<GateInstrumentation> instrumentations;
    private final AdaptiveLimits adaptiveLimits;
    private final LendingPools lendingPools;
    private final KeyTallies keyTallies;

    BulkheadTemplateFactory(ResolvedWorkloads workloads, ListableBeanFactory beanFactory,
                            ObjectProvider<PlatformTransactionManager> primaryTransactionManager,
                            ObjectProvider<DataSource> primaryDataSource,
                            ObjectProvider<TransactionManagerCustomizers> transactionManagerCustomizers,
                            ObjectProvider<GateInstrumentation> instrumentations, AdaptiveLimits adaptiveLimits,
                            KeyTallies keyTallies) {
        this.workloads = workloads;
        this.beanFactory = beanFactory;
        this.transactionManagers = new WorkloadTransactionManagers(beanFactory, primaryTransactionManager,
                primaryDataSource, transactionManagerCustomizers);
        this.instrumentations = instrumentations;
        this.adaptiveLimits = adaptiveLimits;
        this.lendingPools = new LendingPools(workloads, this::dataSourceOf);
        this.keyTallies = keyTallies;
        // One report for all, as for the mistakes, which resolving the workloads reported before.
        List<String> warnings = workloads.settingsThatCannotAct();
        if (!warnings.isEmpty()) {
            logger.warn("db-bulkhead settings that cannot act as written (" + warnings.size() + "):\n  - "
                    + String.join("\n  - ", warnings));
        }
    }

    /**
     * The template of workload {@code workload}, built from its settings as resolved once.
     *
     * @throws BulkheadConfigurationException when the transaction manager or the data source of its transactions cannot
     *                                        be found
     */
    BulkheadTemplate create(String workload) {
        WorkloadSettings settings = workloads.settings(workload);
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
        WorkloadSettings settings = workloads.settings(workload);
        return transactionManagers.dataSource(settings, transactionManagers.transactionManager(workload, settings));
    }
}
