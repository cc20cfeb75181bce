package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.dbbulkhead.autoconfigure.PropertyKeys.AnyKey;
import dev.dbbulkhead.autoconfigure.PropertyKeys.Group;
import dev.dbbulkhead.autoconfigure.PropertyKeys.Key;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Each workload's settings are resolved once, into one value that the template factory and the start-up checks
 * share: a workload's own value first, else the defaults', else the built-in one, each with the property it came from.
 */
class ResolvedWorkloadsTests {

    @Test
    void aWorkloadsOwnValueWinsOverTheInheritedDefaultWhichWinsOverTheBuiltInOne() {
        ResolvedWorkloads workloads = new ResolvedWorkloads(bound("db.bulkhead.defaults.max-concurrent=8",
                "db.bulkhead.defaults.queue-wait=40ms", "db.bulkhead.workloads.orders.max-concurrent=3",
                "db.bulkhead.workloads.orders.queue-wait=20ms", "db.bulkhead.workloads.reports.max-queued=5"));

        WorkloadSettings orders = workloads.settings("orders");
        assertThat(orders.gateConfig().maxConcurrent()).isEqualTo(3);
        assertThat(orders.written().queueWait()).isEqualTo(new Setting<>("db.bulkhead.workloads.orders.queue-wait",
                Duration.ofMillis(20), GateConfig.DEFAULT_QUEUE_WAIT));
        assertThat(orders.written().maxQueued()).isEqualTo(new Setting<>("db.bulkhead.defaults.max-queued",
                GateConfig.DEFAULT_MAX_QUEUED, GateConfig.DEFAULT_MAX_QUEUED));

        WorkloadSettings reports = workloads.settings("reports");
        assertThat(reports.gateConfig().maxConcurrent()).isEqualTo(8);
        assertThat(reports.written().queueWait()).isEqualTo(new Setting<>("db.bulkhead.defaults.queue-wait",
                Duration.ofMillis(40), GateConfig.DEFAULT_QUEUE_WAIT));
        assertThat(reports.written().maxQueued().property()).isEqualTo("db.bulkhead.workloads.reports.max-queued");
        assertThat(reports.gateConfig().maxQueued()).isEqualTo(5);

        assertThat(workloads.defaults().gateConfig().maxConcurrent()).isEqualTo(8);
        assertThat(workloads.defaults().gateConfig().maxQueued()).isEqualTo(GateConfig.DEFAULT_MAX_QUEUED);
        assertThat(workloads.names()).containsExactly("orders", "reports");
    }

    @Test
    void everyReaderOfAWorkloadGetsTheOneValueResolvedForIt() {
        ResolvedWorkloads workloads = new ResolvedWorkloads(bound("db.bulkhead.defaults.max-concurrent=8",
                "db.bulkhead.workloads.orders.max-concurrent=3"));

        assertThat(workloads.settings("orders")).isSameAs(workloads.settings("orders"));
        // A workload no key configures, such as an application's own template, gets the defaults' values, once too.
        WorkloadSettings unconfigured = workloads.settings("audit");
        assertThat(workloads.settings("audit")).isSameAs(unconfigured);
        assertThat(unconfigured.workload()).isEqualTo("audit");
        assertThat(unconfigured.gateConfig().maxConcurrent()).isEqualTo(8);
    }

    @Test
    void resolvingTheWorkloadsReportsEveryMistakeOfEveryWorkloadAndOfTheDefaultsAtOnce() {
        BulkheadProperties properties = bound("db.bulkhead.defaults.retry-after=0s",
                "db.bulkhead.workloads.orders.max-concurrent=0", "db.bulkhead.workloads.reports.retry.max-attempts=11");

        assertThat(ResolvedWorkloads.mistakes(properties)).extracting(BulkheadConfigurationException::getMessage)
                .hasSize(3).anySatisfy(message -> assertThat(message).contains("db.bulkhead.defaults.retry-after"))
                .anySatisfy(message -> assertThat(message).contains("db.bulkhead.workloads.orders.max-concurrent"))
                .anySatisfy(message -> assertThat(message).contains("db.bulkhead.workloads.reports.retry.max-attempts",
                        "between 1 (no retries) and 10, was 11"));
        assertThatExceptionOfType(BulkheadConfigurationException.class)
                .isThrownBy(() -> new ResolvedWorkloads(properties))
                .withMessageContainingAll("db.bulkhead.defaults.retry-after",
                        "db.bulkhead.workloads.orders.max-concurrent",
                        "db.bulkhead.workloads.reports.retry.max-attempts");
    }

    @Test
    void aWorkloadWithoutAGateHasNoRetryAfterOrDatabaseLimitToCheckButItsGateAndTransactionsAreChecked() {
        BulkheadProperties properties = bound("db.bulkhead.workloads.orders.retry-after=0s",
                "db.bulkhead.workloads.orders.limit.database=steer");

        WorkloadSettings ungated = WorkloadSettings.ungated("orders", properties);
        assertThat(ungated.retryAfter()).isNull();
        assertThat(ungated.databaseLimit()).isEmpty();
        assertThatExceptionOfType(BulkheadConfigurationException.class)
                .isThrownBy(() -> WorkloadSettings.of("orders", properties))
                .withMessageContaining("db.bulkhead.workloads.orders.limit.database");
        assertThatExceptionOfType(BulkheadConfigurationException.class)
                .isThrownBy(() -> WorkloadSettings.ungated("orders",
                        bound("db.bulkhead.workloads.orders.max-concurrent=0")))
                .withMessageContaining("db.bulkhead.workloads.orders.max-concurrent");
    }

    @Test
    void theKeyTableSpellsEveryKeyOfAWorkloadOnceAndNoOther() throws IllegalAccessException {
        List<String> table = new ArrayList<>();
        for (Field field : WorkloadKeys.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == WorkloadKeys.Key.class) {
                table.add(((WorkloadKeys.Key<?>) field.get(null)).name());
            }
        }
        List<String> properties = new ArrayList<>();
        leaves("", PropertyKeys.of(BulkheadProperties.Workload.class), properties);

        assertThat(table).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(properties);
    }

    @Test
    void theTemplateFactoryAndThePostgresOnlyCheckReadTheSameResolvedSettings() {
        new ApplicationContextRunner().with(SharedDatabase::onBootJdbc)
                .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
                .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2",
                        "db.bulkhead.workloads.orders.statement-timeout=1s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ResolvedWorkloads workloads = context.getBean(ResolvedWorkloads.class);
                    assertThat(context.getBean(BulkheadTemplateFactory.class)).extracting("workloads")
                            .isSameAs(workloads);
                    assertThat(context.getBean(PostgresOnlyTimeoutsCheck.class)).extracting("workloads")
                            .isSameAs(workloads);
                    // The template carries the very timeouts resolved for its workload: none resolved anew.
                    assertThat(context.getBean(BulkheadRegistry.class).template("orders").timeouts())
                            .isSameAs(workloads.settings("orders").timeouts());
                    assertThat(workloads.settings("orders").postgresOnlyProperties())
                            .containsExactly("db.bulkhead.workloads.orders.statement-timeout");
                });
    }

    private static void leaves(String prefix, Group group, List<String> into) {
        for (Key key : group.keys().values()) {
            if (key.node() instanceof Group nested) {
                leaves(prefix + key.dashed() + ".", nested, into);
            } else {
                // A value, or a map (the weights of fair shares) written as one key.
                assertThat(key.node() instanceof AnyKey || key.node() instanceof PropertyKeys.Value).isTrue();
                into.add(prefix + key.dashed());
            }
        }
    }

    private static BulkheadProperties bound(String... properties) {
        Map<String, String> values = new LinkedHashMap<>();
        Arrays.stream(properties).map(property -> property.split("=", 2))
                .forEach(pair -> values.put(pair[0], pair[1]));
        return new Binder(new MapConfigurationPropertySource(values))
                .bindOrCreate(BulkheadProperties.PREFIX, BulkheadProperties.class);
    }
}
