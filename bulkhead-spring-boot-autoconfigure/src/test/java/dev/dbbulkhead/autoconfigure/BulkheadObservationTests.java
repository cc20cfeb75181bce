package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.spring.BulkheadRegistry;
import dev.dbbulkhead.spring.BulkheadTemplate;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

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
    void theWaitAndTheTransactionAreSeparateObservationsAndTheTransactionRunsInScope() {
        withObservationRegistry().run(context -> {
            ObservationRegistry registry = context.getBean(ObservationRegistry.class);
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");

            String inScope = orders.execute(status -> registry.getCurrentObservation().getContextView().getName());
            orders.executeWithoutResult(status -> status.setRollbackOnly());

            assertThat(inScope).isEqualTo(BulkheadObservations.EXECUTION);
            assertThat(registry.getCurrentObservation()).as("the scope is closed afterwards").isNull();
            assertThat(recorder.events).containsExactly(
                    "start bulkhead orders wait", "stop bulkhead orders wait {outcome=admitted, workload=orders}",
                    "start bulkhead orders", "stop bulkhead orders {outcome=committed, workload=orders}",
                    "start bulkhead orders wait", "stop bulkhead orders wait {outcome=admitted, workload=orders}",
                    "start bulkhead orders", "stop bulkhead orders {outcome=rolled_back, workload=orders}");
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
                assertThat(recorder.events).containsExactly("start bulkhead orders wait",
                        "stop bulkhead orders wait {outcome=timeout, workload=orders}");
            }
        });
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
            events.add("start " + context.getContextualName());
        }

        @Override
        public void onStop(Observation.Context context) {
            List<String> keys = context.getLowCardinalityKeyValues().stream()
                    .map(keyValue -> keyValue.getKey() + "=" + keyValue.getValue()).sorted().toList();
            events.add("stop " + context.getContextualName() + " {" + String.join(", ", keys) + "}");
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return context.getName().startsWith("dbbulkhead.");
        }
    }
}
