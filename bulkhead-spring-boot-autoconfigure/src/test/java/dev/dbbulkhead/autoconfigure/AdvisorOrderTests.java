package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.annotation.DbBulkhead;
import java.io.InputStream;
import java.net.URL;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.RootClassFilter;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Where admission runs among a bean's other advisors, under DataSourceTransactionManager: each advisor notes
 * whether it ran inside the admitted transaction. A guard ordered 100 (as method security orders itself) and a
 * trailing advisor at the lowest precedence (as caching, method validation and retry do).
 */
class AdvisorOrderTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=1")
            .withUserConfiguration(OtherAdvisors.class);

    @Test
    void byDefaultAdmissionRunsInsideEveryOtherAdvisor() {
        runner.run(context -> assertThat(calls(context.getBean(Entry.class)))
                .containsExactly("guard admitted: false", "trailing admitted: false", "entry admitted: true"));
    }

    @Test
    void anAdvisorOrderBetweenTheOthersRunsAdmissionBetweenThem() {
        runner.withPropertyValues("db.bulkhead.advisor-order=200")
                .run(context -> assertThat(calls(context.getBean(Entry.class)))
                        .containsExactly("guard admitted: false", "trailing admitted: true", "entry admitted: true"));
    }

    @Test
    void theHighestPrecedenceRunsAdmissionOutsideEveryOtherAdvisor() {
        runner.withPropertyValues("db.bulkhead.advisor-order=-2147483648")
                .run(context -> assertThat(calls(context.getBean(Entry.class)))
                        .containsExactly("guard admitted: true", "trailing admitted: true", "entry admitted: true"));
    }

    @Test
    void theConfigurationMetadataDescribesTheAdvisorOrderWithItsBuiltInDefault() throws Exception {
        URL metadata = BulkheadProperties.class.getClassLoader()
                .getResource("META-INF/spring-configuration-metadata.json");
        assertThat(metadata).isNotNull();
        ConfigurationMetadataProperty advisorOrder;
        try (InputStream json = metadata.openStream()) {
            advisorOrder = ConfigurationMetadataRepositoryJsonBuilder.create(json).build().getAllProperties()
                    .get("db.bulkhead.advisor-order");
        }
        assertThat(advisorOrder.getDescription()).isNotBlank();
        assertThat(advisorOrder.getDefaultValue()).isEqualTo(BulkheadProperties.DEFAULT_ADVISOR_ORDER);
    }

    private static List<String> calls(Entry entry) {
        Queue<String> calls = new ConcurrentLinkedQueue<>();
        entry.run(calls);
        return List.copyOf(calls);
    }

    private static boolean admitted() {
        return TransactionSynchronizationManager.isActualTransactionActive();
    }

    public static class Entry {

        @DbBulkhead("orders")
        public void run(Queue<String> calls) {
            calls.add("entry admitted: " + admitted());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class OtherAdvisors {

        @Bean
        Entry entry() {
            return new Entry();
        }

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static DefaultPointcutAdvisor guard() {
            return noting("guard", 100);
        }

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static DefaultPointcutAdvisor trailing() {
            return noting("trailing", Integer.MAX_VALUE);
        }

        /** An advisor of Entry that notes its name and whether it runs admitted, then goes on. */
        @SuppressWarnings("unchecked")
        private static DefaultPointcutAdvisor noting(String name, int order) {
            MethodInterceptor note = invocation -> {
                ((Queue<String>) invocation.getArguments()[0]).add(name + " admitted: " + admitted());
                return invocation.proceed();
            };
            DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                    new ComposablePointcut(new RootClassFilter(Entry.class)), note);
            advisor.setOrder(order);
            return advisor;
        }
    }
}
