package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.Permit;
import dev.dbbulkhead.gate.WorkloadBinding;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionException;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.jdbc.ungated.UngatedWork;
import java.sql.Connection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The wiring of {@code db.bulkhead.work}: with a default workload every connection of a watched pool taken outside
 * an admitted operation passes a gate first, and holds its place until it is closed; without one nothing changes;
 * every mistake stops start-up naming the property and the value.
 */
class WorkRulesAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class, UngatedWorkAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.web.max-concurrent=1", "db.bulkhead.workloads.web.max-queued=0",
                    "db.bulkhead.workloads.other.max-concurrent=1", "db.bulkhead.workloads.other.max-queued=0",
                    "db.bulkhead.ungated.application-packages=" + getClass().getPackageName());

    private final ApplicationContextRunner admitting = runner.withPropertyValues(
            "db.bulkhead.work.default-workload=other");

    private static int active(AssertableApplicationContext context, String workload) {
        return context.getBean(BulkheadRegistry.class).template(workload).gate().active();
    }

    private static <T> T bound(String workload, Supplier<T> work) {
        try (WorkloadBinding.Scope scope = WorkloadBinding.bind(workload)) {
            return work.get();
        }
    }

    @Test
    void aConnectionTakenOutsideEveryGateHoldsAPlaceOfTheDefaultWorkloadUntilItIsClosed() {
        admitting.run(context -> {
            DataSource dataSource = context.getBean(DataSource.class);
            // Two connections made and returned, outside the gates by design: the pool then has one free for the
            // nested borrow below, which takes only a connection free right now.
            UngatedWork.allow(() -> {
                try (Connection first = dataSource.getConnection(); Connection second = dataSource.getConnection()) {
                    return first.isValid(1) && second.isValid(1);
                }
            });
            try (Connection connection = dataSource.getConnection()) {
                assertThat(active(context, "other")).as("held while the connection is out").isOne();
                assertThat(connection.isValid(1)).isTrue();
                Throwable refused = catchThrowable(() -> context.getBean(JdbcTemplate.class)
                        .queryForObject("SELECT 1", Integer.class));
                // The same thread holds a place: its second connection is nested in its operation, never refused as a
                // misuse and never a second place.
                assertThat(refused).isNull();
            }
            assertThat(active(context, "other")).as("given back on close").isZero();
            assertThat(context.getBean(WatchedPools.class).detectors().get(0).report().callSites())
                    .as("what only the default caught is reported at the application's frame").singleElement()
                    .satisfies(site -> assertThat(site.site().className()).isEqualTo(getClass().getName()));
        });
    }

    @Test
    void aFullWorkloadRefusesTheConnectionBeforeThePoolIsAsked() {
        admitting.run(context -> {
            // A thread started before the place is held: one started by its holder would be part of its operation.
            ExecutorService other = Executors.newSingleThreadExecutor();
            Throwable refused;
            try {
                other.submit(() -> { }).get();
                Permit held = context.getBean(BulkheadRegistry.class).template("other").gate().acquire();
                try {
                    refused = catchThrowable(() -> {
                        try {
                            other.submit(() -> {
                                context.getBean(DataSource.class).getConnection().close();
                                return null;
                            }).get();
                        } catch (ExecutionException failed) {
                            throw failed.getCause();
                        }
                    });
                } finally {
                    held.close();
                }
            } finally {
                other.shutdown();
            }
            assertThat(refused).isInstanceOfSatisfying(BulkheadRejectedException.class, rejection -> {
                assertThat(rejection.workload()).isEqualTo("other");
                assertThat(rejection.reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
            });
        });
    }

    @Test
    void theWorkloadBoundWhereTheUnitBeganComesBeforeTheDefault() {
        admitting.run(context -> {
            int webActive = bound("web", () -> {
                try (Connection connection = context.getBean(DataSource.class).getConnection()) {
                    return active(context, "web") + 10 * active(context, "other");
                } catch (java.sql.SQLException failed) {
                    throw new IllegalStateException(failed);
                }
            });
            assertThat(webActive).as("web's place, not the default's").isOne();
        });
    }

    @Test
    void aCallerRuleNamesTheWorkloadOfTheBorrowsOfItsPackage() {
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=web",
                "db.bulkhead.work.rules[0].caller=" + getClass().getName()).run(context -> {
            try (Connection connection = context.getBean(DataSource.class).getConnection()) {
                assertThat(active(context, "web")).isOne();
                assertThat(active(context, "other")).isZero();
            }
            assertThat(context.getBean(WatchedPools.class).admissions().get("dataSource").classified())
                    .containsEntry("caller " + getClass().getName() + " -> web", 1L);
        });
    }

    @Test
    void inFailModeWhatOnlyTheDefaultWouldCatchIsRefusedSoThatATestSuiteFindsIt() {
        admitting.withPropertyValues("db.bulkhead.ungated.mode=fail").run(context -> {
            Throwable refused = catchThrowable(() -> context.getBean(DataSource.class).getConnection().close());
            assertThat(refused).isInstanceOf(UngatedConnectionException.class)
                    .hasMessageContaining("the default workload 'other' admitted it");
            assertThat(active(context, "other")).isZero();
        });
    }

    @Test
    void withoutADefaultWorkloadAConnectionOutsideTheGatesIsOnlyWatchedAsBefore() {
        runner.run(context -> {
            try (Connection connection = context.getBean(DataSource.class).getConnection()) {
                assertThat(active(context, "other")).isZero();
            }
            assertThat(context.getBean(WatchedPools.class).admissions()).isEmpty();
            assertThat(context.getBean(WatchedPools.class).detectors().get(0).connections()).isOne();
        });
    }

    @Test
    void aDefaultWorkloadThatIsNotConfiguredStopsStartUpNamingTheWorkloads() {
        runner.withPropertyValues("db.bulkhead.work.default-workload=others")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.work.default-workload", "'others'", "[web, other]"));
    }

    @Test
    void aRuleWithTwoSourcesOrNoneStopsStartUp() {
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=web",
                        "db.bulkhead.work.rules[0].caller=com.example", "db.bulkhead.work.rules[0].scheduled=*")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.work.rules[0]", "exactly one of http, scheduled and caller"));
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=web")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.work.rules[0]", "exactly one of http, scheduled and caller"));
    }

    @Test
    void aCallerThatIsNoPackageOrClassNameStopsStartUp() {
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=web",
                        "db.bulkhead.work.rules[0].caller=com.example.*")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.work.rules[0].caller", "'com.example.*'", "no package or class name"));
    }

    @Test
    void rulesWithoutADefaultWorkloadStopStartUp() {
        runner.withPropertyValues("db.bulkhead.work.rules[0].workload=web", "db.bulkhead.work.rules[0].caller=com.example")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.work.default-workload"));
    }

    @Test
    void aDefaultWorkloadWithTheWatchOffStopsStartUp() {
        admitting.withPropertyValues("db.bulkhead.ungated.mode=off")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.ungated.mode", "'off'", "db.bulkhead.work.default-workload"));
    }
}
