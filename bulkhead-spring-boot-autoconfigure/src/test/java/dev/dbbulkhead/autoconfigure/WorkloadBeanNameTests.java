package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** A workload may share its name with any bean of the application: its template and gate must not go missing. */
class WorkloadBeanNameTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=3");

    @Test
    void aWorkloadNamedLikeTheEntryBeanThatUsesItGetsItsTemplateAndAdmitsTheEntrysCalls() {
        runner.withBean("orders", Orders.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(BulkheadRegistry.class).template("orders").gate().config().maxConcurrent())
                    .isEqualTo(3);
            assertThat(context.getBean("orders", Orders.class).placeInATransaction()).isTrue();
        });
    }

    @Test
    void theTemplateOfAWorkloadWhoseNameIsTakenIsStillInjectedByQualifier() {
        runner.withBean("orders", String.class, () -> "a bean of the application")
                .withBean(QualifiedInjection.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("orders")).isEqualTo("a bean of the application");
                    assertThat(context.getBean(QualifiedInjection.class).orders)
                            .isSameAs(context.getBean(BulkheadRegistry.class).template("orders"));
                });
    }

    @Test
    void aFreeWorkloadNameIsStillTheTemplatesBeanName() {
        runner.run(context -> assertThat(context.getBean("orders"))
                .isSameAs(context.getBean(BulkheadRegistry.class).template("orders")));
    }

    @DbBulkhead("orders")
    static class Orders {
        public boolean placeInATransaction() {
            return TransactionSynchronizationManager.isActualTransactionActive();
        }
    }

    static class QualifiedInjection {

        final BulkheadTemplate orders;

        QualifiedInjection(@Qualifier("orders") BulkheadTemplate orders) {
            this.orders = orders;
        }
    }
}
