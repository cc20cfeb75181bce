package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.DbBulkhead;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.annotation.Transactional;

class DbBulkheadDeclarationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=1",
                    "db.bulkhead.workloads.reports.max-concurrent=1");

    @Test
    void dbBulkheadWithTransactionalOnTheSameMethodFailsStartUpNamingTheBeanTheMethodAndTheFix() {
        assertStartUpFailsWithTransactional(TransactionalMethod.class, "TransactionalMethod.place()");
    }

    @Test
    void dbBulkheadWithTransactionalOnItsClassFailsStartUp() {
        assertStartUpFailsWithTransactional(TransactionalClass.class, "TransactionalClass.place()");
    }

    @Test
    void dbBulkheadWithTransactionalOnAnInterfaceItImplementsFailsStartUp() {
        assertStartUpFailsWithTransactional(TransactionalInterface.class, "TransactionalInterface.place()");
    }

    @Test
    void dbBulkheadWithJakartaTransactionalOnTheSameMethodFailsStartUp() {
        assertStartUpFailsWithTransactional(JakartaTransactionalMethod.class, "JakartaTransactionalMethod.place()");
    }

    @Test
    void aTypeLevelDbBulkheadOverATransactionalMethodFailsStartUp() {
        assertStartUpFailsWithTransactional(TypeLevelWithTransactionalMethod.class,
                "TypeLevelWithTransactionalMethod.place()");
    }

    @Test
    void transactionalOnAnotherMethodOfTheSameBeanIsAllowed() {
        runner.withBean("entry", TransactionalNeighbour.class)
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void dbBulkheadNamingAnUnconfiguredWorkloadFailsStartUpListingTheConfiguredOnes() {
        runner.withBean("entry", UnknownWorkload.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure()))
                    .contains("DbBulkheadDeclarationTests$UnknownWorkload.place()", "bean 'entry'", "@DbBulkhead(\"ordrs\")",
                            "no workload 'ordrs' is configured", "Configured workloads: [orders, reports]",
                            "Action: Configure the workload under 'db.bulkhead.workloads.ordrs'");
        });
    }

    @Test
    void dbBulkheadOnAMethodNoProxyCanInterceptFailsStartUp() {
        runner.withBean("entry", FinalMethod.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure()))
                    .contains("FinalMethod.place()", "bean 'entry'", "private, final or static",
                            "Action: Make DbBulkheadDeclarationTests.FinalMethod.place() a non-private, non-final");
        });
    }

    @Test
    void aMethodsOwnAnnotationWinsOverItsClasss() throws Exception {
        Method own = TypeLevel.class.getMethod("ownWorkload");
        Method inherited = TypeLevel.class.getMethod("classWorkload");
        assertThat(DbBulkheadDeclarations.workloadOf(own, TypeLevel.class)).isEqualTo("orders");
        assertThat(DbBulkheadDeclarations.workloadOf(inherited, TypeLevel.class)).isEqualTo("reports");
    }

    @Test
    void aClassAnnotationCoversItsPublicMethodsOnly() throws Exception {
        assertThat(DbBulkheadDeclarations.workloadOf(TypeLevel.class.getDeclaredMethod("packagePrivate"), TypeLevel.class))
                .isNull();
        assertThat(DbBulkheadDeclarations.workloadOf(Object.class.getMethod("toString"), TypeLevel.class)).isNull();
    }

    @Test
    void anAnnotatedBeanIsProxiedAndAPlainOneIsNot() {
        runner.withBean("annotated", TypeLevel.class).withBean("plain", Plain.class).run(context -> {
            assertThat(AopUtils.isAopProxy(context.getBean("annotated"))).isTrue();
            assertThat(AopUtils.isAopProxy(context.getBean("plain"))).isFalse();
        });
    }

    private void assertStartUpFailsWithTransactional(Class<?> beanClass, String method) {
        runner.withBean("entry", beanClass).run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure()))
                    .contains(method, "bean 'entry'", "@DbBulkhead(\"orders\")", "is also transactional",
                            "Action: Remove @Transactional from DbBulkheadDeclarationTests." + method);
        });
    }

    static class TransactionalMethod {
        @DbBulkhead("orders")
        @Transactional
        public void place() {
        }
    }

    @Transactional
    static class TransactionalClass {
        @DbBulkhead("orders")
        public void place() {
        }
    }

    interface Placing {
        @Transactional
        void place();
    }

    static class TransactionalInterface implements Placing {
        @Override
        @DbBulkhead("orders")
        public void place() {
        }
    }

    static class JakartaTransactionalMethod {
        @DbBulkhead("orders")
        @jakarta.transaction.Transactional
        public void place() {
        }
    }

    @DbBulkhead("orders")
    static class TypeLevelWithTransactionalMethod {
        @Transactional
        public void place() {
        }
    }

    static class TransactionalNeighbour {
        @DbBulkhead("orders")
        public void place() {
        }

        @Transactional
        public void audit() {
        }
    }

    static class UnknownWorkload {
        @DbBulkhead("ordrs")
        public void place() {
        }
    }

    static class FinalMethod {
        @DbBulkhead("orders")
        public final void place() {
        }
    }

    @DbBulkhead("reports")
    static class TypeLevel {
        @DbBulkhead("orders")
        public void ownWorkload() {
        }

        public void classWorkload() {
        }

        void packagePrivate() {
        }
    }

    static class Plain {
        public void place() {
        }
    }
}
