package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint.QueueDescriptor;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateListener;
import dev.dbbulkhead.gate.QueueDiscipline;
import dev.dbbulkhead.metrics.BulkheadMeterBinder;
import dev.dbbulkhead.observation.BulkheadObservationContext;
import dev.dbbulkhead.observation.BulkheadObservationDocumentation;
import dev.dbbulkhead.observation.BulkheadObservations;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The {@code queue.*} keys of a workload — discipline, target delay, interval — bound, validated and passed to the
 * gate, and the discipline shown by the meters, the endpoint and the wait's span. How the CoDel discipline
 * serves and sheds is the gate's, tested with it: here its listener calls and its configuration are the inputs.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class QueueDisciplineAutoConfigurationTests {

    private final MeterRegistry meters = new SimpleMeterRegistry();

    private final ApplicationContextRunner runner = MeteredEndpointApplications.runner(meters)
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2", "db.bulkhead.workloads.orders.max-queued=4",
                    "db.bulkhead.workloads.orders.queue-wait=50ms",
                    "db.bulkhead.workloads.orders.queue.discipline=codel",
                    "db.bulkhead.workloads.orders.queue.target-delay=20ms",
                    "db.bulkhead.workloads.orders.queue.interval=200ms",
                    "db.bulkhead.workloads.reports.max-concurrent=1");

    @Test
    void eachQueueKeyFallsBackToTheDefaultsThenToTheBuiltInDefaults() {
        runner.withPropertyValues("db.bulkhead.defaults.queue.discipline=codel",
                        "db.bulkhead.defaults.queue.interval=300ms",
                        "db.bulkhead.defaults.max-queued=2", "db.bulkhead.defaults.queue-wait=40ms",
                        "db.bulkhead.workloads.inventory.queue.target-delay=7ms",
                        "db.bulkhead.workloads.reports.queue.discipline=fifo")
                .run(context -> {
                    BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                    assertThat(registry.template("orders").gate().config()).as("all its own")
                            .isEqualTo(gate(2, 4, 50, QueueDiscipline.CODEL, 20, 200));
                    assertThat(registry.template("inventory").gate().config())
                            .as("own target delay, discipline and interval from the defaults")
                            .isEqualTo(gate(GateConfig.DEFAULT_MAX_CONCURRENT, 2, 40, QueueDiscipline.CODEL, 7, 300));
                    assertThat(registry.template("reports").gate().config())
                            .as("own discipline, interval from the defaults, built-in target delay")
                            .isEqualTo(gate(1, 2, 40, QueueDiscipline.FIFO,
                                    GateConfig.DEFAULT_QUEUE_TARGET_DELAY.toMillis(), 300));
                });
    }

    @Test
    void withoutQueueKeysEveryWorkloadKeepsTodaysFifoQueue() {
        new ApplicationContextRunner()
                .with(SharedDatabase::onBootJdbc)
                .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
                .withPropertyValues("db.bulkhead.workloads.reports.max-concurrent=1")
                .run(context -> {
                    GateConfig reports = context.getBean(BulkheadRegistry.class).template("reports").gate().config();
                    assertThat(reports.queueDiscipline()).isEqualTo(QueueDiscipline.FIFO)
                            .isEqualTo(GateConfig.DEFAULT_QUEUE_DISCIPLINE);
                    assertThat(reports.queueTargetDelay()).isEqualTo(GateConfig.DEFAULT_QUEUE_TARGET_DELAY);
                    assertThat(reports.queueInterval()).isEqualTo(GateConfig.DEFAULT_QUEUE_INTERVAL);
                });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
            db.bulkhead.workloads.orders.queue.target-delay=0ms | Invalid value '0s' for property 'db.bulkhead.workloads.orders.queue.target-delay' | must be positive
            db.bulkhead.workloads.orders.queue.target-delay=-5ms | Invalid value '-5ms' for property 'db.bulkhead.workloads.orders.queue.target-delay' | must be positive
            db.bulkhead.defaults.queue.interval=0s | Invalid value '0s' for property 'db.bulkhead.defaults.queue.interval' | must be positive
            db.bulkhead.workloads.reports.queue.interval=-1s | Invalid value '-1s' for property 'db.bulkhead.workloads.reports.queue.interval' | must be positive
            db.bulkhead.workloads.orders.queue.target-delay=250ms | Invalid value '250ms' for property 'db.bulkhead.workloads.orders.queue.target-delay' | must be positive and at most db.bulkhead.workloads.orders.queue.interval = 200ms
            db.bulkhead.workloads.reports.queue.interval=2ms | Invalid value '5ms' for property 'db.bulkhead.defaults.queue.target-delay' | must be positive and at most db.bulkhead.workloads.reports.queue.interval = 2ms
            db.bulkhead.defaults.queue.target-delay=0s,db.bulkhead.workloads.reports.queue.target-delay=1ms | Invalid value '0s' for property 'db.bulkhead.defaults.queue.target-delay' | must be positive
            db.bulkhead.workloads.orders.queue.discipline=lifo | Property: db.bulkhead.workloads.orders.queue.discipline | CODEL
            db.bulkhead.defaults.queue.target-delay=soon | 'db.bulkhead.defaults.queue.target-delay' = 'soon' | is not a duration
            """)
    void aBadQueueValueFailsStartUpWithAReportNamingThePropertyTheValueAndTheAllowedRange(String properties,
                                                                                        String names, String allowed) {
        runner.withPropertyValues(properties.split(",")).run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure())).contains(names).contains(allowed);
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            db.bulkhead.workloads.orders.queue.discipline=adaptive | db.bulkhead.workloads.orders.queue.discipline
            db.bulkhead.defaults.queue.discipline=ADAPTIVE | db.bulkhead.defaults.queue.discipline
            """)
    void theDisciplinesFormerNameFailsStartUpNamingItsNewSpelling(String property, String name) {
        runner.withPropertyValues(property).run(context -> {
            assertThat(context).hasFailed();
            assertThat(FailureReports.report(context.getStartupFailure())).contains(name)
                    .contains("the queue discipline 'adaptive' is now called 'codel'")
                    .contains("write queue.discipline: codel");
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(textBlock = """
            codel, CODEL
            CoDel, CODEL
            FIFO, FIFO
            """)
    void theDisciplineBindsWhateverItsCase(String written, QueueDiscipline bound) {
        runner.withPropertyValues("db.bulkhead.workloads.orders.queue.discipline=" + written).run(context ->
                assertThat(context.getBean(BulkheadRegistry.class).template("orders").gate().config()
                        .queueDiscipline()).isEqualTo(bound));
    }

    @Test
    void aCoDelDisciplineWithNothingEverWaitingIsAWarningThatNamesWhyAndStartsAnyway(CapturedOutput output) {
        runner.withPropertyValues("db.bulkhead.defaults.queue.discipline=codel",
                        "db.bulkhead.workloads.search.max-queued=3", "db.bulkhead.workloads.search.queue-wait=0s",
                        "db.bulkhead.workloads.audit.queue.discipline=fifo")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output.getAll()).as("one warning for every finding")
                            .containsPattern("WARN .*db-bulkhead settings that cannot act as written \\(3\\):");
                    List<String> warnings = output.getAll().lines()
                            .filter(line -> line.contains("has nothing to do while")).toList();
                    assertThat(warnings).hasSize(2);
                    assertThat(warnings).anySatisfy(line -> assertThat(line).contains("workload 'reports':"
                            + " queue.discipline=codel (db.bulkhead.defaults.queue.discipline) has nothing to do"
                            + " while max-queued is 0 (db.bulkhead.defaults.max-queued): no operation waits, unless a"
                            + " resize adds queue places. Give it a queue (max-queued and queue-wait above 0), or set"
                            + " db.bulkhead.workloads.reports.queue.discipline=fifo"));
                    assertThat(warnings).anySatisfy(line -> assertThat(line).contains("workload 'search':"
                            + " queue.discipline=codel (db.bulkhead.defaults.queue.discipline) has nothing to do"
                            + " while queue-wait is 0 (db.bulkhead.workloads.search.queue-wait): every waiter gives up"
                            + " at once."));
                    assertThat(warnings).as("orders has a queue; audit is fifo")
                            .noneMatch(line -> line.contains("'orders'") || line.contains("'audit'"));
                });
    }

    @Test
    void theShedCounterAndTheStandingGaugeTaggedWithTheDisciplineAreRegisteredForEveryWorkload() {
        runner.run(context -> {
            assertThat(meters.get(BulkheadMeterBinder.QUEUE_STANDING)
                    .tags("workload", "orders", "discipline", "codel").gauge().value()).isZero();
            assertThat(meters.get(BulkheadMeterBinder.QUEUE_STANDING)
                    .tags("workload", "reports", "discipline", "fifo").gauge().value()).isZero();
            assertThat(meters.get(BulkheadMeterBinder.QUEUE_SHED).tag("workload", "orders").counter().count())
                    .isZero();
            assertThat(meters.get(BulkheadMeterBinder.QUEUE_SHED).tag("workload", "reports").counter().count())
                    .isZero();
            assertThat(meters.get(BulkheadMeterBinder.QUEUE_STANDING).gauge().getId().getDescription())
                    .isNotBlank();
        });
    }

    @Test
    void eachShedIsCountedAndStillCountedAsATimeoutWithItsWaitTimedOnce() {
        BulkheadMeterBinder binder = new BulkheadMeterBinder(meters);
        GateListener orders = binder.listener("orders");

        // What the gate tells of one shed waiter, then of one whose queue wait ran out.
        orders.onWaitStarted("orders");
        orders.onShed("orders", 6_000_000L);
        orders.onRejected("orders", RejectionReason.QUEUE_TIMEOUT, 6_000_000L);
        orders.onWaitStarted("orders");
        orders.onRejected("orders", RejectionReason.QUEUE_TIMEOUT, 50_000_000L);

        assertThat(meters.get(BulkheadMeterBinder.QUEUE_SHED).tag("workload", "orders").counter().count())
                .isEqualTo(1);
        assertThat(meters.get(BulkheadMeterBinder.REJECTED).tags("workload", "orders", "reason", "timeout")
                .counter().count()).isEqualTo(2);
        assertThat(meters.get(BulkheadMeterBinder.QUEUE_WAIT).tag("workload", "orders").timer().count())
                .isEqualTo(2);
    }

    @Test
    void theStandingGaugeReadsTheGateAndKeepsTheDisciplineItWasBuiltWithAcrossAResize() {
        BulkheadMeterBinder binder = new BulkheadMeterBinder(meters);
        AdmissionGate gate = new AdmissionGate("orders", gate(2, 4, 50, QueueDiscipline.CODEL, 20, 200),
                binder.listener("orders"));
        binder.gateBuilt(gate);

        gate.resize(3, 6);

        assertThat(meters.find(BulkheadMeterBinder.QUEUE_STANDING).gauges()).singleElement()
                .satisfies(standing -> {
                    assertThat(standing.getId().getTag("discipline")).isEqualTo("codel");
                    assertThat(standing.getId().getTag("workload")).isEqualTo("orders");
                    assertThat(standing.value()).as("nothing has waited: no queue stands").isZero();
                });
        assertThat(gate.config().queueDiscipline()).isEqualTo(QueueDiscipline.CODEL);
    }

    @Test
    void theEndpointShowsEachWorkloadsDisciplineItsTargetDelayAndIntervalWhetherItStandsAndItsSheds() {
        runner.run(context -> {
            BulkheadsEndpoint endpoint = context.getBean(BulkheadsEndpoint.class);

            assertThat(endpoint.workload("orders").queue()).as("nothing has waited: no queue stands, none was shed")
                    .isEqualTo(new QueueDescriptor("codel", "20ms", "200ms", false, 0));
            assertThat(endpoint.workload("reports").queue()).as("the built-in target delay and interval, as written")
                    .isEqualTo(new QueueDescriptor("fifo", "5ms", "100ms", false, 0));
            assertThat(endpoint.bulkheads().workloads().get("orders").queue().discipline()).isEqualTo("codel");
            assertThat(endpoint.workload("orders").maxQueued()).as("the existing fields stay").isEqualTo(4);
        });
    }

    @Test
    void theSpanOfAShedWaitSaysShedWhileItsOutcomeStaysTimeoutAndItsMeterTagsDoNotChange() {
        ObservationRegistry registry = ObservationRegistry.create();
        List<BulkheadObservationContext> stopped = new CopyOnWriteArrayList<>();
        registry.observationConfig().observationHandler(new ObservationHandler<BulkheadObservationContext>() {
            @Override
            public void onStop(BulkheadObservationContext context) {
                stopped.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof BulkheadObservationContext;
            }
        });
        GateListener orders = new BulkheadObservations(registry, null, null).listener("orders");

        orders.onWaitStarted("orders");
        orders.onShed("orders", 6_000_000L);
        orders.onRejected("orders", RejectionReason.QUEUE_TIMEOUT, 6_000_000L);
        orders.onWaitStarted("orders");
        orders.onRejected("orders", RejectionReason.QUEUE_TIMEOUT, 50_000_000L);

        assertThat(stopped).hasSize(2);
        BulkheadObservationContext shed = stopped.get(0);
        BulkheadObservationContext timedOut = stopped.get(1);
        assertThat(shed.shed()).isTrue();
        assertThat(shed.getHighCardinalityKeyValues()).containsExactly(KeyValue.of("shed", "true"));
        assertThat(timedOut.shed()).isFalse();
        assertThat(timedOut.getHighCardinalityKeyValues()).isEmpty();
        for (BulkheadObservationContext wait : stopped) {
            assertThat(wait.getLowCardinalityKeyValues()).as("the meter handler's timer keeps one set of tags")
                    .containsExactlyInAnyOrder(KeyValue.of("workload", "orders"), KeyValue.of("outcome", "timeout"));
        }
        assertThat(BulkheadObservationDocumentation.WAIT.getHighCardinalityKeyNames())
                .containsExactly(BulkheadObservationDocumentation.HighCardinalityKeys.SHED);
        assertThat(BulkheadObservationDocumentation.EXECUTION.getHighCardinalityKeyNames()).isEmpty();
    }

    @Test
    void theQueueKeysAreDescribedForIdesWithTheirBuiltInDefaults() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties = ConfigurationMetadataTests.generatedMetadata();
        Map<String, Object> builtInDefaults = Map.of(
                "db.bulkhead.defaults.queue.discipline", "fifo",
                "db.bulkhead.defaults.queue.target-delay", GateConfig.DEFAULT_QUEUE_TARGET_DELAY.toMillis() + "ms",
                "db.bulkhead.defaults.queue.interval", GateConfig.DEFAULT_QUEUE_INTERVAL.toMillis() + "ms");
        builtInDefaults.forEach((name, builtIn) -> {
            assertThat(properties.get(name)).as(name).isNotNull();
            assertThat(properties.get(name).getDefaultValue()).as(name).isEqualTo(builtIn);
            assertThat(properties.get(name).getDescription()).as(name).isNotBlank();
        });
        assertThat(properties.get("db.bulkhead.defaults.queue.discipline").getType())
                .isEqualTo(QueueDiscipline.class.getName());
        assertThat(properties.get("db.bulkhead.defaults.queue.target-delay").getType())
                .isEqualTo(Duration.class.getName());
    }

    @Test
    void springBootsBindingHintsReachTheNestedQueueKeysSoANativeImageBindsThem() throws NoSuchMethodException {
        RuntimeHints hints = new RuntimeHints();

        BindableRuntimeHintsRegistrar.forTypes(BulkheadProperties.class).registerHints(hints);

        for (String setter : List.of("setTargetDelay", "setInterval")) {
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(
                    BulkheadProperties.Queue.class.getMethod(setter, Duration.class))).as(setter).accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(
                BulkheadProperties.Queue.class.getMethod("setDiscipline", QueueDiscipline.class))).accepts(hints);
    }

    /**
     * On the real database: one operation holds the only execution permit while three wait; once the queue has stood
     * for an interval, the release sheds the three — each waited past the target — and the meters and the endpoint
     * tell it; once drained, the queue stands no more. Loops wait for states, never for a time.
     *
     * <p>The interval is long beside the target: each waiter judges itself once, at the target delay, and one that
     * found the queue standing then would shed itself before the release — all three, and the drained queue would
     * stand no more before the gauge was read (seen on a loaded machine with a 2 ms interval). A waiter whose
     * wake-up at 1 ms came only after the 1 s interval would still do so.
     */
    @Test
    void onPostgresAStandingCoDelQueueShedsItsOverdueWaitersAndTheMetersAndTheEndpointTellIt() throws Exception {
        runner.withPropertyValues("db.bulkhead.workloads.flood.max-concurrent=1",
                        "db.bulkhead.workloads.flood.max-queued=3", "db.bulkhead.workloads.flood.queue-wait=1m",
                        "db.bulkhead.workloads.flood.queue.discipline=codel",
                        "db.bulkhead.workloads.flood.queue.target-delay=1ms",
                        "db.bulkhead.workloads.flood.queue.interval=1s")
                .run(context -> {
                    BulkheadTemplate flood = context.getBean(BulkheadRegistry.class).template("flood");
                    AdmissionGate gate = flood.gate();
                    JdbcTemplate jdbc = new JdbcTemplate(flood.dataSource().orElseThrow());
                    CountDownLatch holding = new CountDownLatch(1);
                    CountDownLatch release = new CountDownLatch(1);
                    try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
                        Future<Integer> holder = callers.submit(() -> flood.execute(status -> {
                            Integer answer = jdbc.queryForObject("SELECT 42", Integer.class);
                            holding.countDown();
                            await(release);
                            return answer;
                        }));
                        holding.await();
                        List<Future<Integer>> waiters = new ArrayList<>();
                        try {
                            for (int i = 0; i < 3; i++) {
                                waiters.add(callers.submit(() -> flood.execute(
                                        status -> jdbc.queryForObject("SELECT 1", Integer.class))));
                            }
                            Await.until("three waiting", () -> gate.queueLength() == 3);
                            Await.until("the queue judged standing", gate::queueStanding);
                            assertThat(standingGauge("flood")).isEqualTo(1.0);
                        } finally {
                            // Closing the callers waits for the holder: a failed assertion must not leave it held.
                            release.countDown();
                        }

                        assertThat(holder.get()).isEqualTo(42);
                        for (Future<Integer> waiter : waiters) {
                            assertThatThrownBy(waiter::get).cause().isInstanceOfSatisfying(
                                    BulkheadRejectedException.class,
                                    rejected -> assertThat(rejected.reason()).isEqualTo(RejectionReason.QUEUE_TIMEOUT));
                        }
                    }
                    assertThat(meters.get(BulkheadMeterBinder.QUEUE_SHED).tag("workload", "flood").counter().count())
                            .isEqualTo(3);
                    assertThat(meters.get(BulkheadMeterBinder.REJECTED).tags("workload", "flood", "reason", "timeout")
                            .counter().count()).as("sheds are timeouts").isEqualTo(3);
                    assertThat(context.getBean(BulkheadsEndpoint.class).workload("flood").queue().shed()).isEqualTo(3);
                    Await.until("the drained queue no longer standing", () -> !gate.queueStanding());
                    assertThat(standingGauge("flood")).isZero();
                    assertThat(gate.active()).isZero();
                    assertThat(gate.availableAdmissionPermits()).isEqualTo(4);
                });
    }

    private double standingGauge(String workload) {
        return meters.get(BulkheadMeterBinder.QUEUE_STANDING).tags("workload", workload, "discipline", "codel")
                .gauge().value();
    }

    /** Waits inside a transaction callback, which may throw no checked exception. */
    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(interrupted);
        }
    }

    private static GateConfig gate(int maxConcurrent, int maxQueued, long queueWaitMillis, QueueDiscipline discipline,
                                   long targetDelayMillis, long intervalMillis) {
        return GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(maxQueued)
                .queueWait(Duration.ofMillis(queueWaitMillis)).queueDiscipline(discipline)
                .queueTargetDelay(Duration.ofMillis(targetDelayMillis)).queueInterval(Duration.ofMillis(intervalMillis))
                .build();
    }
}
