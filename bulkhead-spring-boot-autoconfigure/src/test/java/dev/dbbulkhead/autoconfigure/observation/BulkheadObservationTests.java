package dev.dbbulkhead.autoconfigure.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.autoconfigure.metrics.BulkheadMetricsAutoConfiguration;
import dev.dbbulkhead.observation.BulkheadExecutionObservationConvention;
import dev.dbbulkhead.observation.BulkheadObservationContext;
import dev.dbbulkhead.observation.BulkheadObservationDocumentation;
import dev.dbbulkhead.observation.BulkheadObservations;
import dev.dbbulkhead.observation.DefaultBulkheadExecutionObservationConvention;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.common.docs.KeyName;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** The observations of admitted operations on PostgreSQL, as a tracing handler would see them. */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class BulkheadObservationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class,
                    BulkheadObservationAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=1",
                    "db.bulkhead.workloads.orders.max-queued=1", "db.bulkhead.workloads.orders.queue-wait=0s");

    private final Recorder recorder = new Recorder();

    private ApplicationContextRunner withObservationRegistry() {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(recorder);
        return runner.withBean(ObservationRegistry.class, () -> registry);
    }

    @Test
    void anOperationAdmittedAtOnceIsObservedRunningOnlyWithItsTransactionInScope() {
        withObservationRegistry().run(context -> {
            ObservationRegistry registry = context.getBean(ObservationRegistry.class);
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");

            String inScope = orders.execute(status -> registry.getCurrentObservation().getContextView().getName());
            orders.executeWithoutResult(status -> status.setRollbackOnly());

            assertThat(inScope).isEqualTo(BulkheadObservations.EXECUTION);
            assertThat(registry.getCurrentObservation()).as("the scope is closed afterwards").isNull();
            assertThat(recorder.events).as("nothing waited: no wait to observe").containsExactly(
                    "start dbbulkhead.execution", "stop bulkhead orders {outcome=committed, workload=orders}",
                    "start dbbulkhead.execution", "stop bulkhead orders {outcome=rolled_back, workload=orders}");
        });
    }

    @Test
    void anOperationThatWaitedIsObservedWaitingThenRunningAsSeparateObservations() {
        withObservationRegistry().withPropertyValues("db.bulkhead.workloads.orders.queue-wait=1m").run(context -> {
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");
            HeldOperations running = HeldOperations.hold(orders, 1);
            recorder.events.clear();
            try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<Integer> waited = callers.submit(() -> orders.execute(status -> 7));
                Await.until("the caller waiting", () -> orders.gate().queueLength() == 1);
                running.close();
                assertThat(waited.get()).isEqualTo(7);
            }

            assertThat(recorder.events).as("the wait, then the transaction").containsSubsequence(
                    "start dbbulkhead.wait", "stop bulkhead orders wait {outcome=admitted, workload=orders}",
                    "start dbbulkhead.execution", "stop bulkhead orders {outcome=committed, workload=orders}");
            assertThat(recorder.events).filteredOn(event -> event.startsWith("start dbbulkhead.wait")).hasSize(1);
        });
    }

    @Test
    void aWaitGivenUpEndsItsObservationAndAFullGateStartsNone() {
        withObservationRegistry().run(context -> {
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");
            try (HeldOperations running = HeldOperations.hold(orders, 1)) {
                recorder.events.clear();
                catchThrowableOfType(BulkheadRejectedException.class, () -> orders.execute(status -> 1));
                orders.resize(1, 0);
                catchThrowableOfType(BulkheadRejectedException.class, () -> orders.execute(status -> 1));
                assertThat(recorder.events).containsExactly("start dbbulkhead.wait",
                        "stop bulkhead orders wait {outcome=timeout, workload=orders}");
            }
        });
    }

    @Test
    void theDefaultConventionsGiveTheDocumentedKeys() {
        withObservationRegistry().run(context -> {
            context.getBean(BulkheadRegistry.class).template("orders").execute(status -> 1);

            List<String> documented = Arrays.stream(BulkheadObservationDocumentation.EXECUTION.getLowCardinalityKeyNames())
                    .map(KeyName::asString).sorted().toList();
            assertThat(documented).containsExactly("outcome", "workload")
                    .isEqualTo(Arrays.stream(BulkheadObservationDocumentation.WAIT.getLowCardinalityKeyNames())
                            .map(KeyName::asString).sorted().toList());
            assertThat(recorder.events).contains("stop bulkhead orders {outcome=committed, workload=orders}");
        });
    }

    @Test
    void anApplicationsConventionBeanReplacesTheDefaultOfItsObservationOnly() {
        withObservationRegistry()
                .withBean(BulkheadExecutionObservationConvention.class, () -> new DefaultBulkheadExecutionObservationConvention() {
                    @Override
                    public String getContextualName(BulkheadObservationContext context) {
                        return "transaction of " + context.workload();
                    }

                    @Override
                    public KeyValues getLowCardinalityKeyValues(BulkheadObservationContext context) {
                        return super.getLowCardinalityKeyValues(context).and(KeyValue.of("tier", "gold"));
                    }
                })
                .run(context -> {
                    context.getBean(BulkheadRegistry.class).template("orders").execute(status -> 1);

                    assertThat(recorder.events).containsExactly("start dbbulkhead.execution",
                            "stop transaction of orders {outcome=committed, tier=gold, workload=orders}");
                });
    }

    /** A Spring Boot application with Boot's observation registry and its default meter handler. */
    private static ApplicationContextRunner bootObservations() {
        return new ApplicationContextRunner()
                .with(SharedDatabase::onBootJdbc)
                .withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
                        MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                        BulkheadAutoConfiguration.class, BulkheadMetricsAutoConfiguration.class,
                        BulkheadObservationAutoConfiguration.class))
                .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=1");
    }

    @Test
    void withOnlyBootsMeterHandlerToSeeThemNothingIsObservedAndTheBulkheadMetersAreTheMetrics() {
        bootObservations().run(context -> {
            assertThat(context).doesNotHaveBean(BulkheadObservations.class);
            assertThat(meterNamesAfterOneOperation(context))
                    .contains("db.bulkhead.queue.wait", "db.bulkhead.execution")
                    .noneMatch(name -> name.startsWith("dbbulkhead."));
        });
    }

    @Test
    void aTracerStillSeesTheObservationsWhileBootsMeterHandlerNoLongerTimesThemASecondTime() {
        bootObservations().withBean("tracer", Recorder.class, () -> recorder).run(context -> {
            assertThat(meterNamesAfterOneOperation(context))
                    .contains("db.bulkhead.queue.wait", "db.bulkhead.execution")
                    .noneMatch(name -> name.startsWith("dbbulkhead."));
            assertThat(recorder.events).containsExactly("start dbbulkhead.execution",
                    "stop bulkhead orders {outcome=committed, workload=orders}");
        });
    }

    @Test
    void aRegistryWithoutAHandlerIsNotObservedUntilItHasOne() {
        ObservationRegistry registry = ObservationRegistry.create();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");

            Object inScope = orders.execute(status -> registry.getCurrentObservation());
            assertThat(inScope).as("no observation without a handler").isNull();
            registry.observationConfig().observationHandler(recorder);
            orders.execute(status -> 1);

            assertThat(recorder.events).containsExactly("start dbbulkhead.execution",
                    "stop bulkhead orders {outcome=committed, workload=orders}");
        });
    }

    private static List<String> meterNamesAfterOneOperation(ApplicationContext context) {
        context.getBean(BulkheadRegistry.class).template("orders").execute(status -> 1);
        return context.getBean(MeterRegistry.class).getMeters().stream().map(meter -> meter.getId().getName())
                .distinct().toList();
    }

    @Test
    void withoutAnObservationRegistryThereAreNoObservations() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(BulkheadObservations.class));
        withObservationRegistry().withClassLoader(new FilteredClassLoader(ObservationRegistry.class))
                .run(context -> assertThat(context).doesNotHaveBean(BulkheadObservations.class));
    }

    /** Records each bulkhead observation's start and stop with its low-cardinality keys, as a tracer would. */
    private static final class Recorder implements ObservationHandler<Observation.Context> {

        final Queue<String> events = new ConcurrentLinkedQueue<>();

        @Override
        public void onStart(Observation.Context context) {
            // The convention names the observation as it starts and gives its contextual name as it stops.
            events.add("start " + context.getName());
        }

        @Override
        public void onStop(Observation.Context context) {
            List<String> keys = context.getLowCardinalityKeyValues().stream()
                    .map(keyValue -> keyValue.getKey() + "=" + keyValue.getValue()).sorted().toList();
            events.add("stop " + context.getContextualName() + " {" + String.join(", ", keys) + "}");
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            // Asked when the observation is created, before its convention names it: the context's type tells.
            return context instanceof BulkheadObservationContext;
        }
    }
}
