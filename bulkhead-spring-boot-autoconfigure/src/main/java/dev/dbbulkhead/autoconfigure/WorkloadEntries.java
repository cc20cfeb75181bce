package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.annotation.DbBulkheadEntries;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import dev.dbbulkhead.transaction.WorkloadRetries;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The ways {@code @DbBulkhead} calls run that the auto-configuration offers: through each workload's
 * {@link BulkheadTemplate}; with {@code db.bulkhead.enabled=false}, in the workload's transaction only; or, where
 * gates were asked for but could not be built, not at all — every entry refused at start-up.
 */
final class WorkloadEntries {

    private WorkloadEntries() {
    }

    /**
     * {@code db.bulkhead.advisor-order}, bound from {@code environment} rather than through
     * {@link BulkheadProperties}, which a post-processor must not create early.
     */
    static int advisorOrder(Environment environment) {
        return Binder.get(environment).bind(BulkheadProperties.PREFIX + ".advisor-order", Integer.class)
                .orElse(BulkheadProperties.DEFAULT_ADVISOR_ORDER);
    }

    /** Admission through each workload's {@link BulkheadTemplate}. */
    static DbBulkheadEntries gated(BulkheadRegistry registry) {
        return new DbBulkheadEntries() {
            @Override
            public void check(String beanName, Class<?> beanClass, Method method, String workload) {
                if (registry.find(workload).isEmpty()) {
                    throw BulkheadConfigurationException.unknownWorkload(beanName, beanClass, method, workload,
                            registry.names());
                }
            }

            @Override
            public TransactionDefinition transactionDefinition(String workload) {
                return registry.template(workload).transactionDefinition();
            }

            @Override
            public PlatformTransactionManager transactionManager(String workload) {
                return registry.template(workload).transactionManager();
            }

            @Override
            public TransactionOperations transactions(String workload, TransactionDefinition definition) {
                return new Admitted(registry.template(workload).withTransactionDefinition(definition));
            }

            @Override
            public boolean retries(String workload) {
                return registry.template(workload).retries().filter(WorkloadRetries::retriesByItself).isPresent();
            }

            @Override
            public boolean classifies(String workload) {
                return !registry.template(workload).gate().config().admissionRules().isNone();
            }
        };
    }

    /**
     * {@code db.bulkhead.enabled=false}: no gate, but still one transaction per call, with the workload's transaction
     * manager and settings — joining a transaction already active, as {@code @Transactional} does.
     */
    static DbBulkheadEntries ungated(BulkheadProperties properties, WorkloadTransactionManagers transactionManagers) {
        // Each workload's own transactions: their manager, and their definition (a TransactionTemplate is one).
        Map<String, TransactionTemplate> byWorkload = new ConcurrentHashMap<>();
        return new DbBulkheadEntries() {
            @Override
            public void check(String beanName, Class<?> beanClass, Method method, String workload) {
                own(workload);
            }

            @Override
            public TransactionDefinition transactionDefinition(String workload) {
                return own(workload);
            }

            @Override
            public PlatformTransactionManager transactionManager(String workload) {
                return Objects.requireNonNull(own(workload).getTransactionManager(), "set when it was made");
            }

            @Override
            public TransactionOperations transactions(String workload, TransactionDefinition definition) {
                return new TransactionTemplate(transactionManager(workload), definition);
            }

            private TransactionTemplate own(String workload) {
                return byWorkload.computeIfAbsent(workload, name -> {
                    WorkloadSettings settings = WorkloadSettings.ungated(name, properties);
                    return new TransactionTemplate(transactionManagers.transactionManager(name, settings),
                            settings.transactionDefinition());
                });
            }
        };
    }

    /** Gates were asked for but could not be built (no data source or transaction manager): refuse every entry. */
    static DbBulkheadEntries unavailable(ListableBeanFactory beanFactory) {
        return new DbBulkheadEntries() {
            @Override
            public void check(String beanName, Class<?> beanClass, Method method, String workload) {
                throw BulkheadConfigurationException.ungatedEntry(beanName, beanClass, method, workload,
                        List.of(beanFactory.getBeanNamesForType(DataSource.class)),
                        Arrays.asList(beanFactory.getBeanNamesForType(PlatformTransactionManager.class)));
            }

            @Override
            public TransactionDefinition transactionDefinition(String workload) {
                throw refusedAtStartUp(workload);
            }

            @Override
            public PlatformTransactionManager transactionManager(String workload) {
                throw refusedAtStartUp(workload);
            }

            @Override
            public TransactionOperations transactions(String workload, TransactionDefinition definition) {
                throw refusedAtStartUp(workload);
            }

            private IllegalStateException refusedAtStartUp(String workload) {
                return new IllegalStateException("No gate for workload '" + workload + "'; refused at start-up");
            }
        };
    }

    /** A template seen as {@link TransactionOperations}: what the interceptor runs calls with. */
    record Admitted(BulkheadTemplate template) implements TransactionOperations {

        @Override
        public <T extends @Nullable Object> T execute(TransactionCallback<T> action) {
            return template.execute(action);
        }
    }
}
