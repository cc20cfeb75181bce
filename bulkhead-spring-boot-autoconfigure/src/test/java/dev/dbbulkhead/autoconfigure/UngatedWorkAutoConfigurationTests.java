package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.autoconfigure.actuate.endpoint.BulkheadEndpointAutoConfiguration;
import dev.dbbulkhead.autoconfigure.metrics.BulkheadMetricsAutoConfiguration;
import dev.dbbulkhead.jdbc.ungated.CallerRules;
import dev.dbbulkhead.jdbc.ungated.DetectionSettings;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionException;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionListener;
import dev.dbbulkhead.jdbc.ungated.UngatedWork;
import dev.dbbulkhead.jdbc.ungated.support.UngatedStartUpReport;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.jdbc.health.DataSourceHealthIndicator;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/** The wiring of {@code db.bulkhead.ungated.*}: which pools are watched, what each mode does, and bad values. */
@ExtendWith(OutputCaptureExtension.class)
class UngatedWorkAutoConfigurationTests {

    /** An application without application packages: no @SpringBootApplication class, none listed. */
    private final ApplicationContextRunner withoutPackages = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class, UngatedWorkAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2");

    /** An application in this test's package, as its @SpringBootApplication class would place it. */
    private final ApplicationContextRunner runner = withoutPackages
            .withPropertyValues("db.bulkhead.ungated.application-packages=" + getClass().getPackageName());

    /** A query outside every gate, from one place: the call site the reports must name. */
    private static int ungatedQuery(AssertableApplicationContext context) {
        return context.getBean(JdbcTemplate.class).queryForObject("SELECT 1", Integer.class);
    }

    private static int gatedQuery(AssertableApplicationContext context) {
        return context.getBean(BulkheadRegistry.class).template("orders")
                .execute(status -> context.getBean(JdbcTemplate.class).queryForObject("SELECT 2", Integer.class));
    }

    private static WatchedPools pools(AssertableApplicationContext context) {
        return context.getBean(WatchedPools.class);
    }

    @Test
    void thePrimaryDataSourceOfTheWorkloadsIsWatchedAndStaysItsHikariPool() {
        runner.run(context -> {
            DataSource dataSource = context.getBean(DataSource.class);
            assertThat(pools(context).isWatched(dataSource)).isTrue();
            assertThat(DataSourceUnwrapper.unwrap(dataSource, HikariConfigMXBean.class, HikariDataSource.class))
                    .isSameAs(dataSource);
            assertThat(pools(context).detectors()).extracting(detector -> detector.pool())
                    .containsExactly("dataSource");
            assertThat(pools(context).mode()).isEqualTo("warn");
        });
    }

    @Test
    void inWarnModeAnUngatedBorrowIsCountedLoggedOnceAndMeteredWhileAGatedOneIsNot(CapturedOutput output) {
        // Spring Boot's own metrics auto-configuration binds the meter binders, as in an application.
        runner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, BulkheadMetricsAutoConfiguration.class))
                .run(context -> {
                    for (int i = 0; i < 3; i++) {
                        assertThat(ungatedQuery(context)).isOne();
                    }
                    assertThat(gatedQuery(context)).isEqualTo(2);

                    var report = pools(context).detectors().get(0).report();
                    assertThat(report.connections()).isEqualTo(3);
                    assertThat(report.callSites()).singleElement().satisfies(count -> {
                        assertThat(count.site().toString()).startsWith(
                                UngatedWorkAutoConfigurationTests.class.getName() + ".ungatedQuery(");
                        assertThat(count.connections()).isEqualTo(3);
                    });
                    assertThat(context.getBean(MeterRegistry.class).get("db.bulkhead.ungated.connections")
                            .tag("pool", "dataSource").functionCounter().count()).isEqualTo(3.0);
                });
        assertThat(output.getAll().split(".ungatedQuery\\(", -1)).as("one warning for the one call site").hasSize(2);
        assertThat(output).contains("A connection of pool 'dataSource' was borrowed outside every gate by "
                + UngatedWorkAutoConfigurationTests.class.getName() + ".ungatedQuery(")
                .contains("@DbBulkhead", "db.bulkhead.ungated.allowed-callers");
    }

    @Test
    void failModeRefusesAnUngatedBorrowNamingThePoolTheCallSiteAndTheFixWhileGatedWorkRuns() {
        runner.withPropertyValues("db.bulkhead.ungated.mode=fail").run(context -> {
            Throwable refused = catchThrowable(() -> ungatedQuery(context));

            assertThat(refused).rootCause().isInstanceOf(UngatedConnectionException.class)
                    .hasMessageContaining("pool 'dataSource'").hasMessageContaining(".ungatedQuery(")
                    .hasMessageContaining("call it from a @DbBulkhead method or through a BulkheadTemplate");
            assertThat(gatedQuery(context)).isEqualTo(2);
            assertThat(UngatedWork.allow(() -> ungatedQuery(context))).as("allowed work runs").isOne();
            assertThat(pools(context).mode()).isEqualTo("fail");
        });
    }

    @Test
    void offModeWatchesNoPool() {
        runner.withPropertyValues("db.bulkhead.ungated.mode=off").run(context -> {
            assertThat(context.getBean(DataSource.class).getClass()).isEqualTo(HikariDataSource.class);
            assertThat(pools(context).detectors()).isEmpty();
            assertThat(pools(context).mode()).isEqualTo("off");
        });
    }

    @Test
    void withoutWorkloadsThereIsNoGateToEscapeAndNoPoolIsWatched() {
        new ApplicationContextRunner().with(SharedDatabase::onBootJdbc)
                .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class,
                        UngatedWorkAutoConfiguration.class))
                .run(context -> assertThat(context.getBean(DataSource.class).getClass()).isEqualTo(HikariDataSource.class));
    }

    @Test
    void withTheGatesTurnedOffNothingIsWatched() {
        runner.withPropertyValues("db.bulkhead.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(WatchedPools.class);
            assertThat(context.getBean(DataSource.class).getClass()).isEqualTo(HikariDataSource.class);
        });
    }

    @Test
    void aDataSourceNamedByAWorkloadIsWatchedBesideThePrimaryOneAndAnUnnamedOneIsNot() {
        runner.withPropertyValues("db.bulkhead.workloads.audit.data-source=auditDataSource")
                .withBean("auditDataSource", DataSource.class, () -> SharedDatabase.DATABASE.pool(1),
                        definition -> definition.setAutowireCandidate(false))
                .withBean("sideDataSource", DataSource.class, () -> SharedDatabase.DATABASE.pool(1),
                        definition -> definition.setAutowireCandidate(false))
                .run(context -> {
                    assertThat(pools(context).detectors()).extracting(detector -> detector.pool())
                            .containsExactly("auditDataSource", "dataSource");
                    assertThat(context.getBean("sideDataSource").getClass()).isEqualTo(HikariDataSource.class);
                });
    }

    @Test
    void aWatchedPoolsBeanOfTheApplicationsOwnReplacesTheAutoConfiguredOne() {
        WatchedPools own = new WatchedPools(new DetectionSettings(CallerRules.defaults(), false, 3, "own advice"),
                true, UngatedConnectionListener.NONE, null);
        runner.withBean(WatchedPools.class, () -> own).run(context -> {
            assertThat(pools(context)).isSameAs(own);
            assertThat(own.detectors()).extracting(detector -> detector.settings().maxCallSites()).containsExactly(3);
        });
    }

    @Test
    void schemaInitialisationTheHealthIndicatorAndTheOwnStartUpChecksAreRecognisedNotReported() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=classpath:ungated/schema.sql",
                        // Each makes one of db-bulkhead's own start-up checks ask the database.
                        "db.bulkhead.fleet.max-instances=2", "db.bulkhead.workloads.orders.statement-timeout=1s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(new DataSourceHealthIndicator(context.getBean(DataSource.class)).health().getStatus()
                            .getCode()).isEqualTo("UP");

                    var report = pools(context).detectors().get(0).report();
                    assertThat(report.connections()).isZero();
                    assertThat(report.recognised()).containsKeys("org.springframework.jdbc.datasource.init",
                            "org.springframework.boot.jdbc.health",
                            "dev.dbbulkhead.budget.ServerConnectionSlots",
                            "dev.dbbulkhead.autoconfigure.PostgresOnlyTimeoutsCheck");
                });
    }

    @Test
    void anAllowedCallerIsRecognisedNotReported() {
        runner.withPropertyValues("db.bulkhead.ungated.mode=fail",
                        "db.bulkhead.ungated.allowed-callers=com.example.batch," + getClass().getName())
                .run(context -> {
                    assertThat(ungatedQuery(context)).isOne();
                    assertThat(pools(context).detectors().get(0).report().recognised())
                            .containsEntry(getClass().getName(), 1L);
                });
    }

    @Test
    void theStartUpReportWarnsOfWhatStartUpBorrowedOutsideTheGatesNamingTheCallSite(CapturedOutput output) {
        runner.withBean(StartUpQuery.class).run(context -> {
            context.getBean(UngatedStartUpReport.class).onApplicationEvent(
                    new ApplicationReadyEvent(new SpringApplication(), new String[0], context, Duration.ZERO));

            assertThat(output).contains("Start-up borrowed 1 connection(s) of pool 'dataSource' outside every gate,"
                    + " from " + StartUpQuery.class.getName() + ".<init>(");
        });
    }

    @Test
    void theStartUpReportNamesAWorkloadWhosePoolIsKnownOnlyThroughItsTransactionManager(CapturedOutput output) {
        try (HikariDataSource ledger = SharedDatabase.DATABASE.pool(1)) {
            runner.withPropertyValues("db.bulkhead.workloads.ledger.transaction-manager=ledgerTransactionManager")
                    .withBean("ledgerTransactionManager", PlatformTransactionManager.class,
                            () -> new DataSourceTransactionManager(ledger),
                            definition -> definition.setAutowireCandidate(false))
                    .run(context -> {
                        context.getBean(UngatedStartUpReport.class).onApplicationEvent(new ApplicationReadyEvent(
                                new SpringApplication(), new String[0], context, Duration.ZERO));

                        assertThat(pools(context).detectors()).extracting(detector -> detector.pool())
                                .containsExactly("dataSource");
                        assertThat(output).contains("Workload 'ledger' admits to a DataSource that is not watched",
                                "db.bulkhead.workloads.ledger.data-source");
                    });
        }
    }

    @Test
    void theEndpointListsEachWatchedPoolsUngatedConnectionsByCallSite() {
        runner.withConfiguration(AutoConfigurations.of(BulkheadEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=dbbulkheads").run(context -> {
            ungatedQuery(context);
            ungatedQuery(context);

            var ungated = context.getBean(BulkheadsEndpoint.class).bulkheads().ungated();

            assertThat(ungated).isNotNull();
            assertThat(ungated.mode()).isEqualTo("warn");
            var pool = ungated.pools().get("dataSource");
            assertThat(pool.connections()).isEqualTo(2);
            assertThat(pool.callSites()).singleElement().satisfies(site -> {
                assertThat(site.site()).startsWith(getClass().getName() + ".ungatedQuery(");
                assertThat(site.connections()).isEqualTo(2);
            });
            assertThat(pool.otherCallSites()).isZero();
        });
    }

    @Test
    void anAllowedCallerThatIsNoPackageOrClassNameFailsStartUpNamingThePropertyAndTheValue() {
        runner.withPropertyValues("db.bulkhead.ungated.allowed-callers=com.example.batch,com.example.*")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("Invalid value 'com.example.*' for property 'db.bulkhead.ungated.allowed-callers[1]'",
                                "no package or class name"));
    }

    @Test
    void thePackageOfTheSpringBootApplicationClassIsTheApplicationsAndItsFrameIsNamed(CapturedOutput output) {
        withoutPackages.withInitializer(context -> AutoConfigurationPackages.register(
                        (BeanDefinitionRegistry) context.getBeanFactory(), getClass().getPackageName()))
                .run(context -> {
                    ungatedQuery(context);

                    assertThat(pools(context).settings().rules().applicationPackages())
                            .containsExactly(getClass().getPackageName());
                    assertThat(pools(context).detectors().get(0).report().callSites()).singleElement()
                            .satisfies(count -> {
                                assertThat(count.site().toString()).startsWith(getClass().getName() + ".ungatedQuery(");
                                assertThat(count.site().application()).isTrue();
                            });
                });
        assertThat(output).doesNotContain("guess");
    }

    @Test
    void withoutAnApplicationPackageTheReportSaysItsSiteIsAGuessAndNeverAdvisesAllowingAFrameworkFrame(
            CapturedOutput output) {
        withoutPackages.withConfiguration(AutoConfigurations.of(BulkheadEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=dbbulkheads").run(context -> {
                    ungatedQuery(context);

                    var site = context.getBean(BulkheadsEndpoint.class).bulkheads().ungated().pools().get("dataSource")
                            .callSites().get(0);
                    assertThat(site.site()).as("this test's package holds the library's own: never named")
                            .startsWith("org.springframework.jdbc.");
                    assertThat(site.guess()).isTrue();
                });
        assertThat(output).contains("outside every gate by org.springframework.jdbc.", "is a guess",
                        "Do not allow it", "db.bulkhead.ungated.application-packages")
                .doesNotContain("list its class or package in db.bulkhead.ungated.allowed-callers");
    }

    @Test
    void anApplicationPackageThatIsNoPackageOrHoldsALibraryFailsStartUpNamingThePropertyAndTheValue() {
        runner.withPropertyValues("db.bulkhead.ungated.application-packages=com.example.shop,org.springframework")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("Invalid value 'org.springframework' for property"
                                + " 'db.bulkhead.ungated.application-packages[1]'", "holds the library"));
        runner.withPropertyValues("db.bulkhead.ungated.application-packages=com.example.*")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("Invalid value 'com.example.*' for property"
                                + " 'db.bulkhead.ungated.application-packages[0]'", "no package name"));
    }

    @Test
    void anApplicationClassInAPackageThatHoldsALibraryIsSaidSoAndItsPackageLeftOut(CapturedOutput output) {
        withoutPackages.withInitializer(context -> AutoConfigurationPackages.register(
                        (BeanDefinitionRegistry) context.getBeanFactory(), "org"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(pools(context).settings().rules().applicationPackages()).isEmpty();
                });
        assertThat(output).contains("The application's package 'org' does not tell its frames from a library's",
                "db.bulkhead.ungated.application-packages");
    }

    @Test
    void maxCallSitesOutOfRangeFailsStartUpNamingThePropertyTheValueAndTheRange() {
        runner.withPropertyValues("db.bulkhead.ungated.max-call-sites=0")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("Invalid value '0' for property 'db.bulkhead.ungated.max-call-sites'",
                                "between 1 and 10000"));
    }

    @Test
    void anUnknownModeFailsStartUpNamingThePropertyTheValueAndTheModes() {
        runner.withPropertyValues("db.bulkhead.ungated.mode=strict")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.ungated.mode", "strict", "WARN", "FAIL", "OFF"));
    }

    /** A bean that queries while it is made, outside every gate, as a cache warmed at start-up would. */
    static class StartUpQuery {
        StartUpQuery(JdbcTemplate jdbc) {
            jdbc.queryForObject("SELECT 3", Integer.class);
        }
    }
}
