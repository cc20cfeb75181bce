package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint.RulesDescriptor;
import dev.dbbulkhead.annotation.DbBulkheadPostProcessor;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.limit.AdaptiveLimitConfig;
import dev.dbbulkhead.retry.RetryBudgetConfig;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import dev.dbbulkhead.transaction.WorkloadRetries;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;

class BulkheadAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class));

    @Test
    void withoutADataSourceNothingIsConfigured() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
                .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=8")
                .run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(BulkheadRegistry.class)
                        .doesNotHaveBean(BulkheadTemplate.class)
                        .doesNotHaveBean(DbBulkheadPostProcessor.class));
    }

    @Test
    void withADataSourceButNoTransactionManagerNothingIsConfigured() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        BulkheadAutoConfiguration.class))
                .withPropertyValues(SharedDatabase.dataSourceProperties())
                .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=8")
                .run(context -> assertThat(context).hasNotFailed()
                        .hasSingleBean(DataSource.class)
                        .doesNotHaveBean(PlatformTransactionManager.class)
                        .doesNotHaveBean(BulkheadRegistry.class)
                        .doesNotHaveBean("orders"));
    }

    @Test
    void disabledConfiguresNoGatesEvenWithWorkloads() {
        runner.withPropertyValues("db.bulkhead.enabled=false", "db.bulkhead.workloads.orders.max-concurrent=8")
                .run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(BulkheadRegistry.class)
                        .doesNotHaveBean("orders")
                        .doesNotHaveBean(DbBulkheadPostProcessor.class));
    }

    @Test
    void withNoWorkloadsTheRegistryIsEmpty() {
        runner.run(context -> assertThat(context.getBean(BulkheadRegistry.class).names()).isEmpty());
    }

    @Test
    void eachWorkloadIsATemplateBeanNamedAfterItAndInTheRegistry() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=8",
                        "db.bulkhead.workloads.reports.max-concurrent=2")
                .withUserConfiguration(QualifiedInjection.class)
                .run(context -> {
                    assertThat(context).getBeans(BulkheadTemplate.class).containsOnlyKeys("orders", "reports");
                    BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                    assertThat(registry.names()).containsExactly("orders", "reports");
                    assertThat(registry.template("orders")).isSameAs(context.getBean("orders"));
                    assertThat(context.getBean(QualifiedInjection.class).reports)
                            .isSameAs(registry.template("reports"));
                });
    }

    @Test
    void theIssuesYamlInheritsTheDefaultQueueWaitKeyByKey() {
        runner.withPropertyValues("db.bulkhead.defaults.queue-wait=50ms",
                        "db.bulkhead.workloads.orders.max-concurrent=8", "db.bulkhead.workloads.orders.max-queued=16",
                        "db.bulkhead.workloads.reports.max-concurrent=2", "db.bulkhead.workloads.reports.max-queued=0",
                        "db.bulkhead.workloads.reports.queue-wait=0s")
                .run(context -> {
                    BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                    assertThat(gate(registry, "orders"))
                            .isEqualTo(GateConfig.builder().maxConcurrent(8).maxQueued(16)
                                    .queueWait(Duration.ofMillis(50)).build());
                    assertThat(gate(registry, "reports"))
                            .isEqualTo(GateConfig.builder().maxConcurrent(2).maxQueued(0).queueWait(Duration.ZERO).build());
                });
    }

    @Test
    void everyKeyFallsBackToTheDefaultsThenToTheBuiltInDefaults() {
        runner.withPropertyValues("db.bulkhead.defaults.max-queued=5", "db.bulkhead.defaults.capture-stack-trace=true",
                        "db.bulkhead.defaults.transaction.isolation=serializable",
                        "db.bulkhead.defaults.transaction.read-only=true", "db.bulkhead.defaults.transaction.timeout=7s",
                        "db.bulkhead.workloads.inherits.max-concurrent=3",
                        "db.bulkhead.workloads.overrides.max-queued=1",
                        "db.bulkhead.workloads.overrides.transaction.isolation=read-committed",
                        "db.bulkhead.workloads.overrides.transaction.read-only=false",
                        "db.bulkhead.workloads.overrides.transaction.timeout=2m")
                .run(context -> {
                    BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                    assertThat(gate(registry, "inherits")).isEqualTo(GateConfig.builder().maxConcurrent(3)
                            .maxQueued(5).queueWait(GateConfig.DEFAULT_QUEUE_WAIT).captureStackTrace(true).build());
                    assertThat(gate(registry, "overrides")).isEqualTo(GateConfig.builder()
                            .maxConcurrent(GateConfig.DEFAULT_MAX_CONCURRENT).maxQueued(1).captureStackTrace(true).build());
                    TransactionDefinition inherited = registry.template("inherits").transactionDefinition();
                    assertThat(inherited.getIsolationLevel()).isEqualTo(TransactionDefinition.ISOLATION_SERIALIZABLE);
                    assertThat(inherited.isReadOnly()).isTrue();
                    assertThat(inherited.getTimeout()).isEqualTo(7);
                    TransactionDefinition overridden = registry.template("overrides").transactionDefinition();
                    assertThat(overridden.getIsolationLevel()).isEqualTo(TransactionDefinition.ISOLATION_READ_COMMITTED);
                    assertThat(overridden.isReadOnly()).isFalse();
                    assertThat(overridden.getTimeout()).isEqualTo(120);
                });
    }

    @Test
    void withoutAnySettingAWorkloadGetsTheBuiltInDefaults() {
        runner.withPropertyValues("db.bulkhead.workloads.plain.capture-stack-trace=false")
                .run(context -> {
                    BulkheadTemplate plain = context.getBean(BulkheadRegistry.class).template("plain");
                    assertThat(plain.gate().config()).isEqualTo(GateConfig.defaults());
                    assertThat(plain.transactionDefinition().getTimeout())
                            .isEqualTo(TransactionDefinition.TIMEOUT_DEFAULT);
                    assertThat(plain.transactionDefinition().getIsolationLevel())
                            .isEqualTo(TransactionDefinition.ISOLATION_DEFAULT);
                });
    }

    @Test
    void aUserTemplateNamedAfterAWorkloadWinsOverTheConfiguredOne() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=8",
                        "db.bulkhead.workloads.reports.max-concurrent=2")
                .withUserConfiguration(UserOrdersTemplate.class)
                .run(context -> {
                    assertThat(context.getBean("orders")).isSameAs(context.getBean(UserOrdersTemplate.class).orders);
                    assertThat(gate(context.getBean(BulkheadRegistry.class), "orders").maxConcurrent()).isEqualTo(1);
                    assertThat(gate(context.getBean(BulkheadRegistry.class), "reports").maxConcurrent()).isEqualTo(2);
                });
    }

    @Test
    void aUserRegistryWins() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=8")
                .withBean("myRegistry", BulkheadRegistry.class, () -> new BulkheadRegistry(Collections.emptyList()))
                .run(context -> assertThat(context).getBean(BulkheadRegistry.class)
                        .isSameAs(context.getBean("myRegistry")));
    }

    @Test
    void aNamedTransactionManagerRunsTheWorkloadsTransactions() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.transaction-manager=otherManager")
                .withUserConfiguration(SecondTransactionManager.class)
                .run(context -> assertThat(transactionManagerOf(context.getBean("orders", BulkheadTemplate.class)))
                        .isSameAs(context.getBean("otherManager")));
    }

    @Test
    void aNamedDataSourceAloneGetsATransactionManagerOfItsOwn() {
        runner.withPropertyValues("db.bulkhead.defaults.data-source=dataSource",
                        "db.bulkhead.workloads.orders.max-concurrent=1", "db.bulkhead.workloads.reports.max-concurrent=1")
                .run(context -> {
                    PlatformTransactionManager orders = transactionManagerOf(context.getBean("orders", BulkheadTemplate.class));
                    assertThat(orders).isInstanceOf(DataSourceTransactionManager.class)
                            .isNotSameAs(context.getBean(PlatformTransactionManager.class));
                    assertThat(((DataSourceTransactionManager) orders).getDataSource())
                            .isSameAs(context.getBean(DataSource.class));
                    assertThat(transactionManagerOf(context.getBean("reports", BulkheadTemplate.class))).isSameAs(orders);
                });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
            db.bulkhead.workloads.orders.max-concurrent=0 | Invalid value '0' for property 'db.bulkhead.workloads.orders.max-concurrent' | between 1 and 2147483647
            db.bulkhead.defaults.max-concurrent=-3 | Invalid value '-3' for property 'db.bulkhead.defaults.max-concurrent' | between 1 and 2147483647
            db.bulkhead.workloads.orders.max-queued=-1 | Invalid value '-1' for property 'db.bulkhead.workloads.orders.max-queued' | between 0 and 2147483647
            db.bulkhead.workloads.orders.max-concurrent=2147483647,db.bulkhead.workloads.orders.max-queued=1 | Invalid value '2147483647 + 1' for property 'db.bulkhead.workloads.orders.max-concurrent + db.bulkhead.workloads.orders.max-queued' | must be at most 2147483647
            db.bulkhead.workloads.orders.queue-wait=-5ms | Invalid value '-5ms' for property 'db.bulkhead.workloads.orders.queue-wait' | zero or positive
            db.bulkhead.workloads.orders.transaction.timeout=-1s | Invalid value '-1s' for property 'db.bulkhead.workloads.orders.transaction.timeout' | whole seconds from 1s to 2147483647s
            db.bulkhead.workloads.orders.transaction.timeout=1500ms | Invalid value '1500ms' for property 'db.bulkhead.workloads.orders.transaction.timeout' | whole seconds from 1s to 2147483647s
            db.bulkhead.workloads.orders.data-source=missing | Invalid value 'missing' for property 'db.bulkhead.workloads.orders.data-source' | must name a DataSource bean; the DataSource beans are [dataSource]
            db.bulkhead.workloads.orders.transaction-manager=dataSource | Invalid value 'dataSource' for property 'db.bulkhead.workloads.orders.transaction-manager' | must name a PlatformTransactionManager bean; the PlatformTransactionManager beans are [transactionManager]
            db.bulkhead.workloads.orders.transaction.isolation=sometimes | Property: db.bulkhead.workloads.orders.transaction.isolation | READ_COMMITTED
            db.bulkhead.workloads.orders.max-concurrent=many | 'db.bulkhead.workloads.orders.max-concurrent' = 'many' | is not a whole number (max-concurrent: 1 to 2147483647)
            db.bulkhead.workloads.orders.queue-wait=soon | 'db.bulkhead.workloads.orders.queue-wait' = 'soon' | is not a duration
            ~db.bulkhead.workloads.orders.statement-timeout=5s'; DROP TABLE entries; --~ | 'db.bulkhead.workloads.orders.statement-timeout' | ~= '5s'; DROP TABLE entries; --' is not a duration~
            db.bulkhead.defaults.deadline=1 fortnight | 'db.bulkhead.defaults.deadline' = '1 fortnight' | is not a duration
            db.bulkhead.workloads.orders.statement-timeout=1500us | Invalid value '1500us' for property 'db.bulkhead.workloads.orders.statement-timeout' | whole number of milliseconds between 1ms and 2147483647ms
            db.bulkhead.defaults.lock-timeout=0s | Invalid value '0s' for property 'db.bulkhead.defaults.lock-timeout' | whole number of milliseconds between 1ms and 2147483647ms
            db.bulkhead.workloads.orders.deadline=-1s | Invalid value '-1s' for property 'db.bulkhead.workloads.orders.deadline' | whole number of milliseconds between 1ms and 2147483647ms
            db.bulkhead.fleet.max-instances=0 | Invalid value '0' for property 'db.bulkhead.fleet.max-instances' | between 1 and 2147483647
            db.bulkhead.fleet.other-connections=-2 | Invalid value '-2' for property 'db.bulkhead.fleet.other-connections' | between 0 and 2147483647
            db.bulkhead.budget.mode=sometimes | Property: db.bulkhead.budget.mode | WARN
            db.bulkhead.workloads.orders.retry-after=0s | Invalid value '0s' for property 'db.bulkhead.workloads.orders.retry-after' | above 0s and at most 1d
            db.bulkhead.defaults.retry-after=2d | Invalid value '2d' for property 'db.bulkhead.defaults.retry-after' | above 0s and at most 1d
            db.bulkhead.workloads.orders.retry-after-jitter=-1s | Invalid value '-1s' for property 'db.bulkhead.workloads.orders.retry-after-jitter' | from 0s to 1d
            db.bulkhead.workloads.orders.retry.max-attempts=0 | Invalid value '0' for property 'db.bulkhead.workloads.orders.retry.max-attempts' | between 1 (no retries) and 10
            db.bulkhead.defaults.retry.max-attempts=11 | Invalid value '11' for property 'db.bulkhead.defaults.retry.max-attempts' | between 1 (no retries) and 10
            db.bulkhead.defaults.retry.percent-can-retry=1.5 | Invalid value '1.5' for property 'db.bulkhead.defaults.retry.percent-can-retry' | between 0.0 and 1.0
            db.bulkhead.workloads.orders.retry.min-retries-per-second=-1 | Invalid value '-1' for property 'db.bulkhead.workloads.orders.retry.min-retries-per-second' | between 0 and 2147483647
            db.bulkhead.workloads.orders.retry.window=500ms | Invalid value '500ms' for property 'db.bulkhead.workloads.orders.retry.window' | between 1s and 1h
            db.bulkhead.workloads.orders.retry.backoff-base=2s | Invalid value '2s' for property 'db.bulkhead.workloads.orders.retry.backoff-base' | between 1ms and backoffCap 1s
            db.bulkhead.workloads.orders.lending.borrow=-1 | Invalid value '-1' for property 'db.bulkhead.workloads.orders.lending.borrow' | between 0 (borrows nothing) and 1000000
            db.bulkhead.defaults.lending.borrow=1000001 | Invalid value '1000001' for property 'db.bulkhead.defaults.lending.borrow' | between 0 (borrows nothing) and 1000000
            db.bulkhead.workloads.orders.criticality.critical-reserve=1.0 | Invalid value '1.0' for property 'db.bulkhead.workloads.orders.criticality.critical-reserve' | at least 0 and below 1
            db.bulkhead.defaults.criticality.critical-reserve=-0.1 | Invalid value '-0.1' for property 'db.bulkhead.defaults.criticality.critical-reserve' | at least 0 and below 1
            db.bulkhead.workloads.orders.criticality.critical-reserve=0.3,db.bulkhead.defaults.criticality.sheddable-reserve=0.2 | Invalid value '0.2' for property 'db.bulkhead.defaults.criticality.sheddable-reserve' | between criticalReserve 0.3 and 1 (exclusive)
            db.bulkhead.workloads.orders.fair-share.key-slots=100 | Invalid value '100' for property 'db.bulkhead.workloads.orders.fair-share.key-slots' | a power of two between 1 and 65536
            db.bulkhead.defaults.fair-share.weights.acme=0 | Invalid value '{acme=0}' for property 'db.bulkhead.defaults.fair-share.weights' | keyWeights['acme'] must be between 1 and 1000
            db.bulkhead.workloads.orders.fair-share.max-running-per-key=2 | Invalid value '2' for property 'db.bulkhead.workloads.orders.fair-share.max-running-per-key' | needs fair-share.enabled: true
            db.bulkhead.defaults.fair-share.enabled=true,db.bulkhead.workloads.orders.fair-share.max-running-per-key=-1 | Invalid value '-1' for property 'db.bulkhead.workloads.orders.fair-share.max-running-per-key' | at least 1, or 0 for no cap
            db.bulkhead.workloads.orders.fair-share.metered-keys=101 | Invalid value '101' for property 'db.bulkhead.workloads.orders.fair-share.metered-keys' | between 0 (every key as other) and 100
            db.bulkhead.workloads.orders.limit.mode=sometimes | Property: db.bulkhead.workloads.orders.limit.mode | ADAPTIVE
            db.bulkhead.defaults.limit.mode=adaptive,db.bulkhead.workloads.orders.limit.min-concurrent=0 | Invalid value '0' for property 'db.bulkhead.workloads.orders.limit.min-concurrent' | between 1 and 2147483647
            db.bulkhead.workloads.orders.limit.mode=adaptive,db.bulkhead.workloads.orders.max-concurrent=4,db.bulkhead.defaults.limit.min-concurrent=5 | Invalid value '5' for property 'db.bulkhead.defaults.limit.min-concurrent' | must be between 1 and max-concurrent (B) = 4, where the adaptive limit starts
            db.bulkhead.workloads.orders.limit.mode=adaptive,db.bulkhead.workloads.orders.max-concurrent=8,db.bulkhead.workloads.orders.limit.max-concurrent=6 | Invalid value '6' for property 'db.bulkhead.workloads.orders.limit.max-concurrent' | must be at least max-concurrent (B) = 8, where the adaptive limit starts
            db.bulkhead.workloads.orders.limit.mode=adaptive,db.bulkhead.workloads.orders.max-queued=2147483000,db.bulkhead.workloads.orders.limit.max-concurrent=1000 | Invalid value '1000' for property 'db.bulkhead.workloads.orders.limit.max-concurrent' | must be at most 2147483647, was 1000 + 2147483000
            """)
    void aBadValueFailsStartUpWithAReportNamingThePropertyTheValueAndTheAllowedRange(String properties,
                                                                                    String names, String allowed) {
        runner.withPropertyValues(properties.split(","))
                .withPropertyValues("db.bulkhead.workloads.reports.max-concurrent=1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure())).contains(names).contains(allowed);
                });
    }

    @Test
    void timeoutsAndDeadlineFallBackToTheDefaultsAndReachTheTransaction() {
        runner.withPropertyValues("db.bulkhead.defaults.statement-timeout=2s", "db.bulkhead.defaults.deadline=5s",
                        "db.bulkhead.workloads.orders.lock-timeout=150ms", "db.bulkhead.workloads.orders.max-concurrent=2")
                .run(context -> {
                    BulkheadTemplate orders = context.getBean("orders", BulkheadTemplate.class);
                    assertThat(orders.timeouts().statementTimeout()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(orders.timeouts().lockTimeout()).isEqualTo(Duration.ofMillis(150));
                    assertThat(orders.timeouts().deadline()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(orders.dataSource()).contains(context.getBean(DataSource.class));
                    String applied = orders.execute(status -> new JdbcTemplate(context.getBean(DataSource.class))
                            .queryForObject("SELECT current_setting('statement_timeout') || ' ' || current_setting('lock_timeout')",
                                    String.class));
                    assertThat(applied).isEqualTo("2s 150ms");
                });
    }

    @Test
    void retrySettingsFallBackToTheDefaultsAndEveryWorkloadGetsABudget() {
        runner.withPropertyValues("db.bulkhead.defaults.retry.percent-can-retry=0.25",
                        "db.bulkhead.workloads.orders.retry.max-attempts=3",
                        "db.bulkhead.workloads.orders.retry.window=30s",
                        "db.bulkhead.workloads.reports.max-concurrent=1")
                .run(context -> {
                    BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                    WorkloadRetries orders = registry.template("orders").retries().orElseThrow();
                    assertThat(orders.maxAttempts()).isEqualTo(3);
                    assertThat(orders.budget().config()).isEqualTo(RetryBudgetConfig.builder()
                            .percentCanRetry(0.25).window(Duration.ofSeconds(30)).build());
                    WorkloadRetries reports = registry.template("reports").retries().orElseThrow();
                    assertThat(reports.maxAttempts()).as("no retries of its own unless configured").isEqualTo(1);
                    assertThat(reports.budget().config().percentCanRetry()).isEqualTo(0.25);
                    assertThat(reports.budget()).isNotSameAs(orders.budget());
                });
    }

    @Test
    void admissionRulesFallBackToTheDefaultsAndReachTheGate() {
        runner.withPropertyValues("db.bulkhead.defaults.criticality.critical-reserve=0.25",
                        "db.bulkhead.workloads.orders.criticality.sheddable-reserve=0.5",
                        "db.bulkhead.workloads.orders.fair-share.enabled=true",
                        "db.bulkhead.workloads.orders.fair-share.key-slots=64",
                        "db.bulkhead.workloads.orders.fair-share.weights.acme=3",
                        "db.bulkhead.workloads.reports.max-concurrent=1")
                .run(context -> {
                    BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                    assertThat(registry.template("orders").gate().config().admissionRules()).isEqualTo(
                            AdmissionRules.builder().criticalReserve(0.25).sheddableReserve(0.5).fairShares(true)
                                    .keySlots(64).keyWeights(Map.of("acme", 3)).build());
                    assertThat(registry.template("reports").gate().config().admissionRules())
                            .as("the defaults' reserve, no shares").isEqualTo(
                                    AdmissionRules.builder().criticalReserve(0.25).build());
                });
    }

    @Test
    void inProgressFirstReachesTheGatesRulesAndTheEndpoint() {
        MeteredEndpointApplications.runner(new SimpleMeterRegistry())
                .withPropertyValues("db.bulkhead.workloads.orders.criticality.in-progress-first=true",
                        "db.bulkhead.workloads.reports.max-concurrent=1")
                .run(context -> {
                    BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                    assertThat(gate(registry, "orders").admissionRules())
                            .isEqualTo(AdmissionRules.builder().inProgressFirst(true).build());
                    assertThat(gate(registry, "reports").admissionRules().isNone()).as("left unset: no rules").isTrue();
                    RulesDescriptor rules = context.getBean(BulkheadsEndpoint.class).workload("orders").rules();
                    assertThat(rules).isNotNull();
                    assertThat(rules.inProgressFirst()).isTrue();
                    assertThat(rules.fairShares()).isFalse();
                });
    }

    @Test
    void theDefaultsInProgressFirstAppliesToEveryWorkloadThatLeavesItUnset() {
        runner.withPropertyValues("db.bulkhead.defaults.criticality.in-progress-first=true",
                        "db.bulkhead.workloads.orders.max-concurrent=2",
                        "db.bulkhead.workloads.reports.criticality.in-progress-first=false")
                .run(context -> {
                    BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                    assertThat(gate(registry, "orders").admissionRules().inProgressFirst()).isTrue();
                    assertThat(gate(registry, "reports").admissionRules().isNone())
                            .as("its own false wins over the defaults").isTrue();
                });
    }

    @Test
    void withoutRulesConfiguredAGateHasNone() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2")
                .run(context -> assertThat(context.getBean(BulkheadRegistry.class).template("orders").gate().config()
                        .admissionRules().isNone()).isTrue());
    }

    @Test
    void aBadValueFailsStartUpEvenUnderLazyInitialization() {
        runner.withPropertyValues("spring.main.lazy-initialization=true", "db.bulkhead.workloads.orders.max-concurrent=0")
                .withInitializer(context -> context.addBeanFactoryPostProcessor(
                        new LazyInitializationBeanFactoryPostProcessor()))
                .run(context -> assertThat(context).hasFailed());
    }

    @Test
    void theConfigurationMetadataDescribesEveryKeyWithItsBuiltInDefault() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties = ConfigurationMetadataTests.generatedMetadata();
        assertThat(properties).containsKeys("db.bulkhead.enabled", "db.bulkhead.workloads",
                "db.bulkhead.defaults.max-concurrent", "db.bulkhead.defaults.max-queued",
                "db.bulkhead.defaults.queue-wait", "db.bulkhead.defaults.capture-stack-trace",
                "db.bulkhead.defaults.transaction.isolation", "db.bulkhead.defaults.transaction.read-only",
                "db.bulkhead.defaults.transaction.timeout", "db.bulkhead.defaults.data-source",
                "db.bulkhead.defaults.transaction-manager", "db.bulkhead.defaults.retry-after",
                "db.bulkhead.defaults.limit.mode", "db.bulkhead.defaults.limit.min-concurrent",
                "db.bulkhead.defaults.limit.max-concurrent");
        assertThat(properties.values()).allSatisfy(property -> assertThat(property.getDescription()).isNotBlank());
        Map<String, Object> builtInDefaults = Map.of(
                "db.bulkhead.enabled", true,
                "db.bulkhead.defaults.max-concurrent", GateConfig.DEFAULT_MAX_CONCURRENT,
                "db.bulkhead.defaults.max-queued", GateConfig.DEFAULT_MAX_QUEUED,
                "db.bulkhead.defaults.queue-wait", GateConfig.DEFAULT_QUEUE_WAIT.toMillis() + "ms",
                "db.bulkhead.defaults.capture-stack-trace", GateConfig.DEFAULT_CAPTURE_STACK_TRACE,
                "db.bulkhead.defaults.retry-after", WorkloadSettings.DEFAULT_RETRY_AFTER.toSeconds() + "s",
                "db.bulkhead.defaults.limit.mode", "fixed",
                "db.bulkhead.defaults.limit.min-concurrent", AdaptiveLimitConfig.DEFAULT_MIN_CONCURRENT);
        builtInDefaults.forEach((name, builtIn) ->
                assertThat(properties.get(name).getDefaultValue()).as(name).isEqualTo(builtIn));
        assertThat(properties.get("db.bulkhead.workloads").getType())
                .isEqualTo("java.util.Map<java.lang.String,dev.dbbulkhead.autoconfigure.BulkheadProperties$Workload>");
    }

    private static GateConfig gate(BulkheadRegistry registry, String workload) {
        return registry.template(workload).gate().config();
    }

    private static PlatformTransactionManager transactionManagerOf(BulkheadTemplate template) {
        return template.transactionManager();
    }

    @Configuration(proxyBeanMethods = false)
    static class QualifiedInjection {

        final BulkheadTemplate reports;

        QualifiedInjection(@Qualifier("reports") BulkheadTemplate reports) {
            this.reports = reports;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserOrdersTemplate {

        final BulkheadTemplate orders;

        UserOrdersTemplate(PlatformTransactionManager transactionManager) {
            this.orders = new BulkheadTemplate(new AdmissionGate("orders", GateConfig.builder().maxConcurrent(1).build()),
                    transactionManager);
        }

        @Bean
        BulkheadTemplate orders() {
            return orders;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SecondTransactionManager {

        @Bean
        @Primary
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        PlatformTransactionManager otherManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }
    }
}
