package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.annotation.DbBulkheadPostProcessor;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizers;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@code @DbBulkhead} methods where {@link BulkheadAutoConfiguration} built no gates: never run without a
 * transaction. With {@code db.bulkhead.enabled=false} each call runs in the workload's transaction (its
 * transaction manager and settings), without a gate; when gates were asked for but could not be built — no
 * data source or no transaction manager, as with several DataSources and none primary — start-up fails with a
 * report for every annotated method.
 */
@AutoConfiguration(after = BulkheadAutoConfiguration.class)
@ConditionalOnMissingBean(DbBulkheadPostProcessor.class)
@EnableConfigurationProperties(BulkheadProperties.class)
@Import(QueueDisciplineBinding.class)
public final class UngatedEntriesAutoConfiguration {

    /** Static, as a post-processor must be: it is created before the other beans. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static DbBulkheadPostProcessor dbBulkheadUngatedPostProcessor(ObjectProvider<BulkheadProperties> properties,
            ListableBeanFactory beanFactory, ObjectProvider<PlatformTransactionManager> transactionManager,
            ObjectProvider<DataSource> dataSource,
            ObjectProvider<TransactionManagerCustomizers> transactionManagerCustomizers, Environment environment) {
        return new DbBulkheadPostProcessor(() -> {
            BulkheadProperties settings = properties.getObject();
            if (settings.isEnabled()) {
                return WorkloadEntries.unavailable(beanFactory);
            }
            return WorkloadEntries.ungated(settings, new WorkloadTransactionManagers(beanFactory, transactionManager,
                    dataSource, transactionManagerCustomizers));
        }, WorkloadEntries.advisorOrder(environment));
    }
}
