package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.budget.ConnectionBudgetCheck;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.MapPropertySource;

/**
 * What the user writes under {@code db.bulkhead} either takes effect as written or stops start-up with a report
 * naming the property: misspelt keys, workload names the binder would rewrite, durations without a unit, values
 * that do not convert, and settings that cannot work together.
 */
@ExtendWith(OutputCaptureExtension.class)
class MistakesStopStartUpTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class));

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
            db.bulkhead.workloads.orders.max-concurent=4     | 'db.bulkhead.workloads.orders.max-concurent' is not a db-bulkhead property | the nearest known key is 'db.bulkhead.workloads.orders.max-concurrent'
            db.bulkhead.defualts.max-concurrent=4            | 'db.bulkhead.defualts.max-concurrent' is not a db-bulkhead property        | the nearest known key is 'db.bulkhead.defaults.max-concurrent'
            db.bulkhead.defaults.queue-wiat=50ms             | 'db.bulkhead.defaults.queue-wiat' is not a db-bulkhead property            | the nearest known key is 'db.bulkhead.defaults.queue-wait'
            db.bulkhead.workloads.orders.retry.max-atempts=3 | 'db.bulkhead.workloads.orders.retry.max-atempts' is not a db-bulkhead      | the nearest known key is 'db.bulkhead.workloads.orders.retry.max-attempts'
            db.bulkhead.fleet.lease-tll=10s                  | 'db.bulkhead.fleet.lease-tll' is not a db-bulkhead property                | the nearest known key is 'db.bulkhead.fleet.lease-ttl'
            db.bulkhead.enabeld=true                         | 'db.bulkhead.enabeld' is not a db-bulkhead property                        | the nearest known key is 'db.bulkhead.enabled'
            db.bulkhead.orders.max-concurrent=4              | 'db.bulkhead.orders.max-concurrent' is not a db-bulkhead property          | the nearest known key is 'db.bulkhead.workloads.orders.max-concurrent'
            """)
    void aMisspeltKeyStopsStartUpNamingItAndTheNearestKnownKey(String property, String named, String nearest) {
        runner.withPropertyValues(property, "db.bulkhead.workloads.orders.max-queued=2")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure())).contains(named).contains(nearest);
                });
    }

    @Test
    void relaxedSpellingsOfKnownKeysStayAccepted() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.maxConcurrent=3",
                        "db.bulkhead.workloads.orders.max_queued=2", "db.bulkhead.defaults.queueWait=40ms",
                        "db.bulkhead.workloads.orders.fair-share.weights.acme=3",
                        "db.bulkhead.request-deadline.paths[0].pattern=/reports/**",
                        "db.bulkhead.request-deadline.paths[0].budget=5s",
                        "db.bulkhead.ungated.allowed-callers=com.example.batch,com.example.CacheWarmer")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    var orders = context.getBean(BulkheadRegistry.class).template("orders").gate().config();
                    assertThat(orders.maxConcurrent()).isEqualTo(3);
                    assertThat(orders.maxQueued()).isEqualTo(2);
                    assertThat(orders.queueWait()).isEqualTo(Duration.ofMillis(40));
                });
    }

    @Test
    void everyKeyTheConfigurationMetadataDescribesIsAKnownKey() throws Exception {
        Map<String, ConfigurationMetadataProperty> described = ConfigurationMetadataTests.generatedMetadata();
        PropertyKeys.Group keys = PropertyKeys.of(BulkheadProperties.class);
        assertThat(described.keySet()).filteredOn(name -> name.startsWith(BulkheadProperties.PREFIX + "."))
                .isNotEmpty().allSatisfy(name -> assertThat(known(keys, name)).as(name).isTrue());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
            db.bulkhead.workloads.order api.max-concurrent=4   | order api
            db.bulkhead.workloads[order api].max-concurrent=4  | order api
            db.bulkhead.workloads.Orders.max-concurrent=4      | Orders
            db.bulkhead.workloads.order_api.max-concurrent=4   | order_api
            db.bulkhead.workloads[a.b].max-concurrent=4        | a.b
            """)
    void aWorkloadNameTheBinderWouldRewriteStopsStartUpNamingItAndTheAllowedForm(String property, String name) {
        runner.withPropertyValues(property)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure()))
                            .contains("a workload named '" + name + "'")
                            .contains(BulkheadPropertiesCheck.WORKLOAD_NAME_RULE);
                });
    }

    @Test
    void theNamesOfTheSampleAndTheDocsAreWorkloadNames() {
        assertThat(List.of("orders", "reports", "ledger", "audit", "shop", "checkout", "clinic", "vets",
                "visits", "ledger-by-data-source", "catalogue")).allSatisfy(name ->
                assertThat(BulkheadPropertiesCheck.WORKLOAD_NAME.matcher(name).matches()).as(name).isTrue());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
            db.bulkhead.workloads.orders.retry-after=5         | 'db.bulkhead.workloads.orders.retry-after' = '5' has no unit: write it with one, such as 5s or 5ms
            db.bulkhead.defaults.transaction.timeout=5         | 'db.bulkhead.defaults.transaction.timeout' = '5' has no unit
            db.bulkhead.workloads.orders.queue-wait=50         | 'db.bulkhead.workloads.orders.queue-wait' = '50' has no unit
            db.bulkhead.workloads.orders.deadline=1000         | 'db.bulkhead.workloads.orders.deadline' = '1000' has no unit
            db.bulkhead.fleet.heartbeat=1                      | 'db.bulkhead.fleet.heartbeat' = '1' has no unit
            db.bulkhead.request-deadline.budget=2000           | 'db.bulkhead.request-deadline.budget' = '2000' has no unit
            """)
    void aDurationWithoutAUnitStopsStartUp(String property, String message) {
        runner.withPropertyValues(property, "db.bulkhead.workloads.orders.max-queued=2")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure())).contains(message);
                });
    }

    @Test
    void aDurationWithoutAUnitFromYamlStopsStartUpToo() {
        runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new MapPropertySource("yaml", Map.of("db.bulkhead.workloads.orders.retry-after", 5))))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure()))
                            .contains("'db.bulkhead.workloads.orders.retry-after' = '5' has no unit");
                });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
            db.bulkhead.workloads.orders.max-queued=abc        | 'db.bulkhead.workloads.orders.max-queued' = 'abc' is not a whole number (max-queued: 0 to 2147483647)
            db.bulkhead.defaults.max-concurrent=many           | 'db.bulkhead.defaults.max-concurrent' = 'many' is not a whole number (max-concurrent: 1 to 2147483647)
            db.bulkhead.workloads.orders.retry.max-attempts=x  | 'db.bulkhead.workloads.orders.retry.max-attempts' = 'x' is not a whole number (max-attempts: 1 to 10, 1 for no retries)
            db.bulkhead.workloads.orders.capture-stack-trace=y | 'db.bulkhead.workloads.orders.capture-stack-trace' = 'y' is not true or false
            db.bulkhead.workloads.orders.queue-wait=soon       | 'db.bulkhead.workloads.orders.queue-wait' = 'soon' is not a duration (such as 500ms, 5s or 2m)
            db.bulkhead.defaults.retry.percent-can-retry=most  | 'db.bulkhead.defaults.retry.percent-can-retry' = 'most' is not a number (percent-can-retry: Share of the first attempts of the window that may be retried, from 0 to 1)
            db.bulkhead.workloads.orders.fair-share.weights.acme=heavy | 'db.bulkhead.workloads.orders.fair-share.weights.acme' = 'heavy' is not a whole number
            db.bulkhead.fleet.other-connections=some           | 'db.bulkhead.fleet.other-connections' = 'some' is not a whole number (other-connections: at least 0)
            """)
    void aValueThatDoesNotConvertStopsStartUpNamingThePropertyTheValueAndTheRange(String property, String message) {
        runner.withPropertyValues(property)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure())).contains(message);
                });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', textBlock = """
            db.bulkhead.workloads.orders.queue-wait=100ms,db.bulkhead.workloads.orders.deadline=50ms | Invalid value '50ms' for property 'db.bulkhead.workloads.orders.deadline' | must be longer than queue-wait = 100ms (db.bulkhead.workloads.orders.queue-wait)
            db.bulkhead.defaults.queue-wait=1s,db.bulkhead.workloads.orders.deadline=1s             | Invalid value '1s' for property 'db.bulkhead.workloads.orders.deadline'    | must be longer than queue-wait = 1s (db.bulkhead.defaults.queue-wait)
            """)
    void aDeadlineNoLongerThanTheQueueWaitStopsStartUp(String properties, String named, String allowed) {
        runner.withPropertyValues(properties.split(","))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure())).contains(named).contains(allowed);
                });
    }

    @Test
    void aQueueWaitOfAWorkloadWithoutQueuePlacesIsAWarningNamingBothProperties(CapturedOutput output) {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-queued=0",
                        "db.bulkhead.workloads.orders.queue-wait=50ms")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).contains("workload 'orders': queue-wait = 50ms"
                            + " (db.bulkhead.workloads.orders.queue-wait) has no effect while max-queued is 0"
                            + " (db.bulkhead.workloads.orders.max-queued)");
                });
    }

    @Test
    void sevenValuesOutOfRangeAcrossTheDefaultsAndTwoWorkloadsAreReportedInOneStartUpAsWritten() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=0",
                        "db.bulkhead.workloads.orders.max-queued=-1",
                        "db.bulkhead.workloads.orders.queue-wait=-1s",
                        "db.bulkhead.workloads.orders.criticality.critical-reserve=1.5",
                        "db.bulkhead.workloads.reports.fair-share.key-slots=3",
                        "db.bulkhead.workloads.reports.retry.max-attempts=20",
                        "db.bulkhead.defaults.deadline=0ms")
                .run(context -> {
                    assertThat(context).hasFailed();
                    String report = FailureReports.report(context.getStartupFailure());
                    assertThat(report).contains("db-bulkhead property values out of their ranges (7):")
                            .contains("Invalid value '0' for property 'db.bulkhead.workloads.orders.max-concurrent'")
                            .contains("Invalid value '-1' for property 'db.bulkhead.workloads.orders.max-queued'")
                            .contains("Invalid value '-1s' for property 'db.bulkhead.workloads.orders.queue-wait'")
                            .contains("Invalid value '1.5' for property"
                                    + " 'db.bulkhead.workloads.orders.criticality.critical-reserve'")
                            .contains("Invalid value '3' for property 'db.bulkhead.workloads.reports.fair-share.key-slots'")
                            .contains("Invalid value '20' for property 'db.bulkhead.workloads.reports.retry.max-attempts'")
                            .contains("Invalid value '0s' for property 'db.bulkhead.defaults.deadline'")
                            .as("durations as a configuration writes them").doesNotContain("PT");
                });
    }

    @Test
    void aMisspeltKeyAndAValueOutOfRangeAreReportedInTheSameStartUp() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurent=4",
                        "db.bulkhead.workloads.orders.max-queued=-1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure()))
                            .contains("'db.bulkhead.workloads.orders.max-concurent' is not a db-bulkhead property")
                            .contains("Invalid value '-1' for property 'db.bulkhead.workloads.orders.max-queued'");
                });
    }

    @Test
    void aValueWrittenWhereAWorkloadsKeysBelongNamesTheKeyItMayHaveMeant() {
        runner.withPropertyValues("db.bulkhead.workloads.audit=4")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(FailureReports.report(context.getStartupFailure()))
                            .contains("'db.bulkhead.workloads.audit' = '4' is a value where keys belong")
                            .contains("such as 'db.bulkhead.workloads.audit.max-concurrent'")
                            .doesNotContain("BulkheadProperties$Workload");
                });
    }

    @Test
    void queuePlacesWithoutAQueueWaitAreAWarningNamingBothPropertiesAndTheFix(CapturedOutput output) {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2",
                        "db.bulkhead.workloads.orders.max-queued=16")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).contains("db-bulkhead settings that cannot act as written (1):")
                            .contains("workload 'orders': max-queued = 16 (db.bulkhead.workloads.orders.max-queued)"
                                    + " has no effect while queue-wait is 0s (db.bulkhead.defaults.queue-wait)")
                            .contains("Set queue-wait to about how long the workload's operations take");
                });
    }

    @Test
    void aLockTimeoutNotBelowTheStatementTimeoutIsAWarningInTheSameReportAsTheOthers(CapturedOutput output) {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2",
                        "db.bulkhead.workloads.orders.statement-timeout=1s",
                        "db.bulkhead.workloads.orders.lock-timeout=2s",
                        "db.bulkhead.workloads.reports.max-concurrent=2",
                        "db.bulkhead.workloads.reports.max-queued=4")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).contains("db-bulkhead settings that cannot act as written (2):")
                            .contains("workload 'orders': lock-timeout = 2s (db.bulkhead.workloads.orders.lock-timeout)"
                                    + " can never end a lock wait: statement-timeout = 1s")
                            .contains("workload 'reports': max-queued = 4");
                });
    }

    @Test
    void aCriticalityReserveThatRoundsDownToNoPlaceIsAWarning(CapturedOutput output) {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2",
                        "db.bulkhead.workloads.orders.max-queued=2",
                        "db.bulkhead.defaults.criticality.critical-reserve=0.2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).contains("workload 'orders': db.bulkhead.defaults.criticality.critical-reserve"
                            + " = 0.2 holds back no place of max-concurrent + max-queued = 4 (rounded down)");
                });
    }

    @Test
    void theBudgetReportNamesAPoolWithoutAPoolNameByItsBeanName() {
        runner.withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    String report = context.getBean(ConnectionBudgetCheck.class).report().orElseThrow().describe();
                    assertThat(report).contains("pool 'dataSource'").doesNotContain("null");
                });
    }

    /** Whether {@code name}, as the metadata writes it, walks the keys to its end. */
    private static boolean known(PropertyKeys.Group root, String name) {
        PropertyKeys.Node node = root;
        for (String element : name.substring(BulkheadProperties.PREFIX.length() + 1).split("\\.")) {
            if (!(node instanceof PropertyKeys.Group group)) {
                return node instanceof PropertyKeys.AnyKey || node instanceof PropertyKeys.Indexed;
            }
            PropertyKeys.Key key = group.keys().get(PropertyKeys.uniform(element));
            if (key == null) {
                return false;
            }
            node = key.node();
        }
        return true;
    }
}
