package dev.dbbulkhead.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.FailureReports;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.sql.DataSource;
import kotlin.coroutines.Continuation;
import kotlinx.coroutines.flow.FlowKt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.reactivestreams.Publisher;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.scheduling.annotation.Async;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

class DbBulkheadDeclarationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=1",
                    "db.bulkhead.workloads.reports.max-concurrent=1");

    @Test
    void dbBulkheadBesideTransactionalWithAPropagationThatJoinsTheAdmittedTransactionStarts() {
        runner.withBean("entry", JoiningPropagations.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void requiresNewOnAGatedMethodFailsStartUpNamingThePropagationAndWhatIsAllowed() {
        assertStartUpFailsWithPropagation(RequiresNewMethod.class, "RequiresNewMethod.place()", "REQUIRES_NEW",
                "would suspend it and begin another, taking a second connection while holding the first");
    }

    @Test
    void notSupportedOnTheClassOfAGatedMethodFailsStartUp() {
        assertStartUpFailsWithPropagation(NotSupportedClass.class, "NotSupportedClass.place()", "NOT_SUPPORTED",
                "would suspend it and run the method outside it");
    }

    @Test
    void neverOnAnInterfaceAGatedMethodImplementsFailsStartUp() {
        assertStartUpFailsWithPropagation(NeverInterface.class, "NeverInterface.place()", "NEVER",
                "fails on every call, because that transaction is active");
    }

    @Test
    void jakartaRequiresNewOnAGatedMethodFailsStartUp() {
        assertStartUpFailsWithPropagation(JakartaRequiresNewMethod.class, "JakartaRequiresNewMethod.place()",
                "REQUIRES_NEW", "taking a second connection");
    }

    @Test
    void nestedUnderATypeLevelDbBulkheadFailsStartUp() {
        assertStartUpFailsWithPropagation(TypeLevelWithNestedMethod.class, "TypeLevelWithNestedMethod.place()",
                "NESTED", "would make the method a savepoint inside it");
    }

    @Test
    void everyRefusedMethodOfABeanIsNamedInOneReport() {
        runner.withBean("entry", SeveralRefusals.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure())).contains(
                    "Bean 'entry' has 3 @DbBulkhead declarations that cannot be admitted:",
                    "SeveralRefusals.place()", "SeveralRefusals.cancel()", "SeveralRefusals.archive()",
                    "propagation REQUIRES_NEW", "propagation NOT_SUPPORTED", "private, final or static",
                    "Action: 1. ", "\n2. ", "\n3. ");
        });
    }

    @Test
    void aTransactionalNamingTheWorkloadsTransactionManagerStarts() {
        runner.withUserConfiguration(TwoTransactionManagers.class)
                .withBean("entry", NamesTheWorkloadsManager.class)
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aTransactionalNamingAnotherTransactionManagerFailsStartUpNamingBoth() {
        runner.withUserConfiguration(TwoTransactionManagers.class)
                .withBean("entry", NamesAnotherManager.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure())).contains(
                            "NamesAnotherManager.place()", "bean 'entry'", "@DbBulkhead(\"orders\")",
                            "Spring would run its transaction in 'ledgerTransactionManager' while workload 'orders'"
                                    + " runs its transactions in 'transactionManager'",
                            "on a connection the gate does not count",
                            "Action: Let one transaction manager run both",
                            "'db.bulkhead.workloads.orders.transaction-manager'");
                });
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
    void dbBulkheadNamingAWorkloadInCapitalsNamesTheConfiguredWorkloadItMeantNotOneStartUpWouldRefuse() {
        runner.withBean("entry", CapitalisedWorkload.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure()))
                    .contains("@DbBulkhead(\"Orders\")", "'Orders' cannot be a workload's name",
                            "Action: Name 'orders' in the annotation (it is configured).")
                    .doesNotContain("db.bulkhead.workloads.Orders");
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
    void dbBulkheadOnAFinalClassFailsStartUpLikeAFinalMethodInsteadOfFailingInTheProxyFactory() {
        runner.withBean("entry", FinalClass.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure()))
                    .contains("Bean 'entry'", "DbBulkheadDeclarationTests$FinalClass", "it is a final class",
                            "none of its calls could be admitted",
                            "Action: Make DbBulkheadDeclarationTests.FinalClass a non-final class");
        });
    }

    @Test
    void dbBulkheadOnARecordFailsStartUpNamingTheRecord() {
        runner.withBean("entry", RecordEntry.class, () -> new RecordEntry("ada")).run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure()))
                    .contains("Bean 'entry'", "DbBulkheadDeclarationTests$RecordEntry", "it is a record",
                            "move the @DbBulkhead methods to a class of their own");
        });
    }

    @ParameterizedTest(name = "{0} fails start-up")
    @CsvSource(delimiter = '|', textBlock = """
            ReturnsCompletableFuture | place()           | it returns CompletableFuture: the method returns before the work it stands for has run | CompletableFuture.supplyAsync(() -> bean.method(...), executor)
            ReturnsFuture            | place()           | it returns Future: the method returns before the work                                   | Return the value itself
            ReturnsStream            | lines()           | it returns a lazy Stream: the caller consumes it after the transaction has committed   | return a List
            ReturnsIntStream         | quantities()      | it returns a lazy IntStream                                                             | return a List
            ReturnsPublisher         | lines()           | it returns Rows, a publisher: nothing runs until it is subscribed to                   | gate a blocking method that returns the materialised value
            ReturnsFlowPublisher     | lines()           | it returns Publisher, a publisher                                                       | gate a blocking method
            ReturnsKotlinFlow        | lines()           | it returns Flow, a publisher                                                            | gate a blocking method
            KotlinSuspendFunction    | place(Continuation) | it is a Kotlin suspend function: it returns at its first suspension                  | withContext(Dispatchers.IO)
            AsyncMethod              | place()           | it is also @Async: the connection is taken and the transaction begun on the caller's thread | move @DbBulkhead to a method of another bean
            AsyncClass               | place()           | it is also @Async                                                                       | move @DbBulkhead to a method of another bean
            """)
    void anEntryWhoseWorkWouldRunAfterItReturnsFailsStartUpSayingWhyAndWhatToDo(String bean, String method,
                                                                                 String why, String fix) {
        runner.withBean("entry", nested(bean)).run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure()))
                    .contains("DbBulkheadDeclarationTests$" + bean + "." + method, "bean 'entry'",
                            "@DbBulkhead(\"orders\")", why,
                            "Its database work would escape the gate's limit and the transaction.", "Action: " , fix);
        });
    }

    @Test
    void anEntryReturningAMaterialisedValueOrAnOptionalStarts() {
        runner.withBean("entry", ReturnsMaterialisedValues.class).run(context -> assertThat(context).hasNotFailed());
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

    private void assertStartUpFailsWithPropagation(Class<?> beanClass, String method, String propagation,
                                                   String why) {
        runner.withBean("entry", beanClass).run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure()))
                    .contains(method, "bean 'entry'", "@DbBulkhead(\"orders\")",
                            "is also transactional with propagation " + propagation, why,
                            "Action: Give DbBulkheadDeclarationTests." + method + " propagation REQUIRED (the"
                                    + " default), SUPPORTS or MANDATORY");
        });
    }

    @Transactional(readOnly = true)
    static class JoiningPropagations {
        @DbBulkhead("orders")
        public void required() {
        }

        @DbBulkhead("orders")
        @Transactional(propagation = Propagation.SUPPORTS)
        public void supports() {
        }

        @DbBulkhead("orders")
        @Transactional(propagation = Propagation.MANDATORY)
        public void mandatory() {
        }
    }

    static class RequiresNewMethod {
        @DbBulkhead("orders")
        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public void place() {
        }
    }

    @Transactional(propagation = Propagation.NOT_SUPPORTED)
    static class NotSupportedClass {
        @DbBulkhead("orders")
        public void place() {
        }
    }

    interface Placing {
        @Transactional(propagation = Propagation.NEVER)
        void place();
    }

    static class NeverInterface implements Placing {
        @Override
        @DbBulkhead("orders")
        public void place() {
        }
    }

    static class JakartaRequiresNewMethod {
        @DbBulkhead("orders")
        @jakarta.transaction.Transactional(jakarta.transaction.Transactional.TxType.REQUIRES_NEW)
        public void place() {
        }
    }

    @DbBulkhead("orders")
    static class TypeLevelWithNestedMethod {
        @Transactional(propagation = Propagation.NESTED)
        public void place() {
        }
    }

    static class SeveralRefusals {
        @DbBulkhead("orders")
        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public void place() {
        }

        @DbBulkhead("orders")
        @Transactional(propagation = Propagation.NOT_SUPPORTED)
        public void cancel() {
        }

        @DbBulkhead("orders")
        public final void archive() {
        }
    }

    /** Boot's transaction manager, kept primary, and one of another pool. */
    @Configuration(proxyBeanMethods = false)
    static class TwoTransactionManagers {

        @Bean
        @Primary
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        DataSourceTransactionManager ledgerTransactionManager() {
            return new DataSourceTransactionManager(new SingleConnectionDataSource());
        }
    }

    static class NamesTheWorkloadsManager {
        @DbBulkhead("orders")
        @Transactional("transactionManager")
        public void place() {
        }
    }

    static class NamesAnotherManager {
        @DbBulkhead("orders")
        @Transactional("ledgerTransactionManager")
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

    static class CapitalisedWorkload {
        @DbBulkhead("Orders")
        public void place() {
        }
    }

    static class FinalMethod {
        @DbBulkhead("orders")
        public final void place() {
        }
    }

    static final class FinalClass {
        @DbBulkhead("orders")
        public void place() {
        }
    }

    record RecordEntry(String name) {
        @DbBulkhead("orders")
        public void place() {
        }
    }

    static class ReturnsCompletableFuture {
        @DbBulkhead("orders")
        public CompletableFuture<String> place() {
            return CompletableFuture.completedFuture("placed");
        }
    }

    static class ReturnsFuture {
        @DbBulkhead("orders")
        public Future<String> place() {
            return CompletableFuture.completedFuture("placed");
        }
    }

    static class ReturnsStream {
        @DbBulkhead("orders")
        public Stream<String> lines() {
            return Stream.of("book");
        }
    }

    @DbBulkhead("orders")
    static class ReturnsIntStream {
        public IntStream quantities() {
            return IntStream.of(2);
        }
    }

    /** A publisher type of the application's own, as Reactor's Mono and Flux are: recognised through its interfaces. */
    interface Rows extends Publisher<String> {
    }

    static class ReturnsPublisher {
        @DbBulkhead("orders")
        public Rows lines() {
            return subscriber -> { };
        }
    }

    static class ReturnsFlowPublisher {
        @DbBulkhead("orders")
        public Flow.Publisher<String> lines() {
            return subscriber -> { };
        }
    }

    static class ReturnsKotlinFlow {
        @DbBulkhead("orders")
        public kotlinx.coroutines.flow.Flow<String> lines() {
            return FlowKt.emptyFlow();
        }
    }

    /** What the Kotlin compiler makes of {@code @DbBulkhead("orders") suspend fun place(): String}. */
    static class KotlinSuspendFunction {
        @DbBulkhead("orders")
        public Object place(Continuation<? super String> continuation) {
            return "placed";
        }
    }

    static class AsyncMethod {
        @DbBulkhead("orders")
        @Async
        public void place() {
        }
    }

    @Async
    static class AsyncClass {
        @DbBulkhead("orders")
        public void place() {
        }
    }

    @DbBulkhead("orders")
    static class ReturnsMaterialisedValues {
        public List<String> lines() {
            return List.of("book");
        }

        public Optional<String> first() {
            return Optional.of("book");
        }
    }

    private static Class<?> nested(String simpleName) {
        try {
            return Class.forName(DbBulkheadDeclarationTests.class.getName() + "$" + simpleName);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException(simpleName, e);
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
