package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.annotation.BackgroundUnitsPostProcessor;
import dev.dbbulkhead.annotation.DbBulkheadPostProcessor;
import dev.dbbulkhead.budget.BudgetSettings;
import dev.dbbulkhead.budget.ConnectionBudgetCheck;
import dev.dbbulkhead.gate.GateInstrumentation;
import dev.dbbulkhead.metrics.KeyTallies;
import dev.dbbulkhead.transaction.AdaptiveLimits;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadShutdown;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizers;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * One {@link BulkheadTemplate} bean per workload of {@code db.bulkhead.workloads}, a {@link BulkheadRegistry} of
 * them all, and the advisor that admits {@code @DbBulkhead} methods. Needs a data source and a transaction
 * manager, so it runs after Spring Boot's auto-configuration of both; {@code db.bulkhead.enabled=false} turns
 * it off.
 */
@AutoConfiguration(after = {DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
        TransactionAutoConfiguration.class},
        afterName = "org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration")
@ConditionalOnBooleanProperty(name = BulkheadProperties.PREFIX + ".enabled", matchIfMissing = true)
@ConditionalOnBean({DataSource.class, PlatformTransactionManager.class})
@EnableConfigurationProperties(BulkheadProperties.class)
@Import({WorkloadTemplateRegistrar.class, QueueDisciplineBinding.class})
public final class BulkheadAutoConfiguration {

    /** Every workload's settings, resolved once for the template factory and the start-up checks. */
    @Bean
    @ConditionalOnMissingBean
    ResolvedWorkloads dbBulkheadResolvedWorkloads(BulkheadProperties properties) {
        return new ResolvedWorkloads(properties);
    }

    @Bean(WorkloadTemplateRegistrar.FACTORY_BEAN_NAME)
    @ConditionalOnMissingBean
    BulkheadTemplateFactory dbBulkheadTemplateFactory(ResolvedWorkloads workloads, ListableBeanFactory beanFactory,
            ObjectProvider<PlatformTransactionManager> transactionManager, ObjectProvider<DataSource> dataSource,
            ObjectProvider<TransactionManagerCustomizers> transactionManagerCustomizers,
            ObjectProvider<GateInstrumentation> instrumentations, AdaptiveLimits adaptiveLimits,
            KeyTallies keyTallies) {
        return new BulkheadTemplateFactory(workloads, beanFactory, transactionManager, dataSource,
                transactionManagerCustomizers, instrumentations, adaptiveLimits, keyTallies);
    }

    @Bean
    @ConditionalOnMissingBean
    KeyTallies dbBulkheadKeyTallies() {
        return new KeyTallies();
    }

    @Bean
    @ConditionalOnMissingBean
    AdaptiveLimits dbBulkheadAdaptiveLimits() {
        return new AdaptiveLimits();
    }

    @Bean
    @ConditionalOnMissingBean
    BulkheadRegistry bulkheadRegistry(ObjectProvider<BulkheadTemplate> templates, BulkheadProperties properties) {
        // Configuration order, so that reports and the endpoint list workloads as the user wrote them.
        List<String> configured = List.copyOf(properties.getWorkloads().keySet());
        Comparator<BulkheadTemplate> inConfigurationOrder = Comparator.comparingInt(template -> {
            int position = configured.indexOf(template.workload());
            return position < 0 ? Integer.MAX_VALUE : position;
        });
        BulkheadRegistry registry = new BulkheadRegistry(templates.orderedStream().sorted(inConfigurationOrder).toList());
        AheadOfTimeWorkloads.requireProcessed(configured, registry.names());
        return registry;
    }

    /**
     * The gates drain within the timeout Spring gives each shutdown phase, as the web server's graceful shutdown does
     * in the same phase.
     */
    @Bean
    @ConditionalOnMissingBean
    BulkheadShutdown dbBulkheadShutdown(ObjectProvider<BulkheadRegistry> registry, Environment environment) {
        Duration phaseTimeout = Binder.get(environment)
                .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class).orElse(Duration.ofSeconds(30));
        return new BulkheadShutdown(registry::getObject, phaseTimeout);
    }

    @Bean
    @ConditionalOnMissingBean
    ConnectionBudgetCheck dbBulkheadConnectionBudgetCheck(ObjectProvider<BulkheadRegistry> registry,
            BulkheadProperties properties, AdaptiveLimits adaptiveLimits, ListableBeanFactory beanFactory) {
        BulkheadProperties.Fleet fleet = properties.getFleet();
        validateFleet(fleet);
        BudgetSettings settings = new BudgetSettings(properties.getBudget().getMode() == BulkheadProperties.BudgetMode.FAIL,
                fleet.getMaxInstances(), fleet.getOtherConnections());
        return new ConnectionBudgetCheck(registry, settings, BulkheadConfigurationException::connectionBudget,
                adaptiveLimits::mostConcurrent, () -> OpenSessionInViewCheck.findings(beanFactory),
                dataSource -> beanNameOf(beanFactory, dataSource));
    }

    /** The name of the DataSource bean that is {@code dataSource}; null when none is. */
    private static @Nullable String beanNameOf(ListableBeanFactory beanFactory, DataSource dataSource) {
        for (Map.Entry<String, DataSource> bean : beanFactory.getBeansOfType(DataSource.class, false, false).entrySet()) {
            if (bean.getValue() == dataSource) {
                return bean.getKey();
            }
        }
        return null;
    }

    @Bean
    @ConditionalOnMissingBean
    PostgresOnlyTimeoutsCheck dbBulkheadPostgresOnlyLimitsCheck(ObjectProvider<BulkheadRegistry> registry,
            ResolvedWorkloads workloads) {
        return new PostgresOnlyTimeoutsCheck(registry, workloads);
    }

    private static void validateFleet(BulkheadProperties.Fleet fleet) {
        String prefix = BulkheadProperties.PREFIX + ".fleet.";
        if (fleet.getMaxInstances() != null && fleet.getMaxInstances() < 1) {
            throw BulkheadConfigurationException.invalidProperty(prefix + "max-instances", fleet.getMaxInstances(),
                    "must be between 1 and " + Integer.MAX_VALUE + " (peak instances at once)");
        }
        if (fleet.getOtherConnections() < 0) {
            throw BulkheadConfigurationException.invalidProperty(prefix + "other-connections",
                    fleet.getOtherConnections(), "must be between 0 and " + Integer.MAX_VALUE);
        }
    }

    /**
     * Static, as a post-processor must be: it is created before the other beans of this class. Registered after
     * Boot's method validation post-processor, which appends its advisor to a bean's others: this one then places
     * itself last.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static DbBulkheadPostProcessor dbBulkheadPostProcessor(ObjectProvider<BulkheadRegistry> registry,
            Environment environment) {
        // Processed ahead of time, the application registers no workload at start-up, where the properties are
        // otherwise checked; post-processors are still created before any properties bean is bound.
        if (AotDetector.useGeneratedArtifacts()) {
            BulkheadPropertiesCheck.check(environment);
        }
        return new DbBulkheadPostProcessor(() -> WorkloadEntries.gated(registry.getObject()),
                WorkloadEntries.advisorOrder(environment));
    }

    /**
     * Makes each run of a scheduled, {@code @Async} or message listener method a unit of work, as the web filter makes
     * each request one: its later operations go first, and a graceful shutdown lets them finish. Static, as a
     * post-processor must be.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static BackgroundUnitsPostProcessor backgroundUnitsPostProcessor() {
        return new BackgroundUnitsPostProcessor();
    }

    /** Each run of a Spring Batch step bean is a unit of work, its chunks its operations. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.batch.core.step.AbstractStep")
    static final class BatchStepUnitsConfiguration {

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static BeanPostProcessor batchStepUnits() {
            return new BatchStepUnits();
        }
    }

    /** Each run of a job of a Quartz scheduler bean is a unit of work. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.quartz.Scheduler")
    static final class QuartzJobUnitsConfiguration {

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static BeanPostProcessor quartzJobUnits() {
            return new QuartzJobUnits();
        }
    }
}
