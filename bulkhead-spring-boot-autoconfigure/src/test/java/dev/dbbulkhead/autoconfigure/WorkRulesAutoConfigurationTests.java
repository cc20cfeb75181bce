package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.autoconfigure.actuate.endpoint.BulkheadEndpointAutoConfiguration;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.Permit;
import dev.dbbulkhead.gate.RequestCommits;
import dev.dbbulkhead.gate.WorkloadBinding;
import dev.dbbulkhead.jdbc.ungated.StackSampling;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionException;
import dev.dbbulkhead.jdbc.ungated.support.HealthEndpointOutsideGates;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.jdbc.ungated.UngatedWork;
import java.sql.Connection;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import javax.sql.DataSource;
import dev.dbbulkhead.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.scheduling.support.ScheduledMethodRunnable;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import dev.dbbulkhead.jdbc.ungated.support.UngatedStartUpReport;
import dev.dbbulkhead.autoconfigure.ledger.OrderListener;
import dev.dbbulkhead.autoconfigure.ledger.ReportJob;
import dev.dbbulkhead.autoconfigure.ledger.TransactionalJobs;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * The wiring of {@code db.bulkhead.work}: with a default workload every connection of a watched pool taken outside
 * an admitted operation passes a gate first, and holds its place until it is closed; without one nothing changes;
 * every mistake stops start-up naming the property and the value.
 */
@ExtendWith(OutputCaptureExtension.class)
class WorkRulesAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class, UngatedWorkAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.web.max-concurrent=1", "db.bulkhead.workloads.web.max-queued=0",
                    "db.bulkhead.workloads.other.max-concurrent=1", "db.bulkhead.workloads.other.max-queued=0",
                    "db.bulkhead.workloads.jobs.max-concurrent=1",
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
    void theDefaultsCallSitesAreSampledUnlessAnAllowedCallerIsRecognisedByTheStack() {
        admitting.run(context -> assertThat(context.getBean(WatchedPools.class).admissionSettings().sampling())
                .isSameAs(StackSampling.defaults()));
        admitting.withPropertyValues("db.bulkhead.ungated.allowed-callers=com.example.batch")
                .run(context -> assertThat(context.getBean(WatchedPools.class).admissionSettings().sampling())
                        .isSameAs(StackSampling.everyBorrow()));
    }

    @Test
    void theHealthEndpointIsMarkedOutsideTheGatesWhereTheActuatorIsAndNotReplacedWhereTheApplicationHasItsOwn() {
        admitting.run(context -> assertThat(context).hasSingleBean(HealthEndpointOutsideGates.class));
        admitting.withClassLoader(new FilteredClassLoader(OperationInvokerAdvisor.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(HealthEndpointOutsideGates.class));
        HealthEndpointOutsideGates own = new HealthEndpointOutsideGates();
        admitting.withBean(HealthEndpointOutsideGates.class, () -> own)
                .run(context -> assertThat(context.getBean(HealthEndpointOutsideGates.class)).isSameAs(own));
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
    void theEndpointShowsWhatAdmittedHowManyBorrowsOfEachPool() {
        admitting.withConfiguration(AutoConfigurations.of(BulkheadEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=dbbulkheads",
                        "db.bulkhead.work.rules[0].workload=web",
                        "db.bulkhead.work.rules[0].caller=com.example.reports")
                .run(context -> {
                    context.getBean(DataSource.class).getConnection().close();
                    bound("web", () -> {
                        try {
                            context.getBean(DataSource.class).getConnection().close();
                            return null;
                        } catch (java.sql.SQLException failed) {
                            throw new IllegalStateException(failed);
                        }
                    });
                    var ungated = context.getBean(BulkheadsEndpoint.class).bulkheads().ungated();
                    assertThat(ungated).isNotNull();
                    assertThat(ungated.admission()).isNotNull().satisfies(admission -> {
                        assertThat(admission.defaultWorkload()).isEqualTo("other");
                        assertThat(admission.pools().get("dataSource")).containsExactly(
                                Map.entry("bound web", 1L), Map.entry("caller com.example.reports -> web", 0L),
                                Map.entry("default other", 1L), Map.entry("nested", 0L));
                    });
                    assertThat(ungated.pools().get("dataSource").connections())
                            .as("what only the default caught").isOne();
                });
    }

    @Test
    void aRefusedScheduledRunIsSkippedCountedForItsJobAndLoggedOnceWithItsName(CapturedOutput output) {
        admitting.withConfiguration(AutoConfigurations.of(BulkheadEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=dbbulkheads",
                        "db.bulkhead.work.rules[0].workload=web", "db.bulkhead.work.rules[0].scheduled=*")
                .run(context -> {
                    Archive archive = new Archive(context.getBean(DataSource.class));
                    ScheduledMethodRunnable run = new ScheduledMethodRunnable(archive,
                            Archive.class.getMethod("archive"));
                    ExecutorService scheduler = Executors.newSingleThreadExecutor();
                    try {
                        scheduler.submit(() -> { }).get();
                        Permit held = context.getBean(BulkheadRegistry.class).template("web").gate().acquire();
                        try {
                            for (int i = 0; i < 3; i++) {
                                assertThat(catchThrowable(() -> scheduler.submit(run).get()))
                                        .hasRootCauseInstanceOf(BulkheadRejectedException.class);
                            }
                        } finally {
                            held.close();
                        }
                        scheduler.submit(run).get();
                    } finally {
                        scheduler.shutdown();
                    }
                    assertThat(archive.runs).as("the run after the place freed").isOne();
                    var admission = context.getBean(BulkheadsEndpoint.class).bulkheads().ungated().admission();
                    assertThat(admission.refusedRuns())
                            .containsExactly(Map.entry("scheduled job " + Archive.class.getName() + ".archive", 3L));
                });
        assertThat(output.getAll().split(java.util.regex.Pattern.quote("A run of scheduled job "
                + Archive.class.getName() + ".archive was refused"), -1)).as("logged once").hasSize(2);
    }

    @Test
    void aScheduledRuleNamesATransactionalJobByItsOwnClassThoughOnlyItsProxyIsOnTheStack() {
        admitting.withBean(TransactionalJobs.class)
                .withPropertyValues("db.bulkhead.work.rules[0].workload=jobs",
                        "db.bulkhead.work.rules[0].scheduled=" + TransactionalJobs.class.getName())
                .run(context -> {
                    TransactionalJobs jobs = context.getBean(TransactionalJobs.class);
                    jobs.probe(() -> active(context, "jobs") * 10 + active(context, "other"));
                    ScheduledMethodRunnable run = new ScheduledMethodRunnable(jobs,
                            TransactionalJobs.class.getMethod("reconcile"));
                    ExecutorService scheduler = Executors.newSingleThreadExecutor();
                    try {
                        scheduler.submit(run).get();
                    } finally {
                        scheduler.shutdown();
                    }
                    assertThat(jobs.seen()).as("the job's transaction holds jobs' place, not the default's").isEqualTo(10);
                });
    }

    @Test
    void aCallerRuleNamesTheTransactionsOfATransactionalServiceOfItsPackageCalledFromElsewhere() {
        admitting.withBean(TransactionalJobs.class)
                .withPropertyValues("db.bulkhead.work.rules[0].workload=jobs",
                        "db.bulkhead.work.rules[0].caller=" + TransactionalJobs.class.getPackageName())
                .run(context -> assertThat(context.getBean(TransactionalJobs.class).inTransaction(
                        () -> active(context, "jobs") * 10 + active(context, "other")))
                        .as("jobs' place, not the default's").isEqualTo(10));
    }

    /** What a borrow on this thread holds: jobs' places × 10 + the default's. */
    private static int borrowAndSee(AssertableApplicationContext context) {
        try (Connection connection = context.getBean(DataSource.class).getConnection()) {
            return active(context, "jobs") * 10 + active(context, "other");
        } catch (java.sql.SQLException failed) {
            throw new IllegalStateException(failed);
        }
    }

    @Test
    void aListenerRuleNamesTheWorkloadOfTheMessageListenerMethodsOfItsClass() {
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=web",
                        "db.bulkhead.work.rules[0].scheduled=*",
                        "db.bulkhead.work.rules[1].workload=jobs",
                        "db.bulkhead.work.rules[1].listener=" + OrderListener.class.getName())
                .run(context -> {
                    OrderListener listener = new OrderListener(() -> borrowAndSee(context));
                    // What Kafka's, Rabbit's and JMS's containers call an annotated listener method through.
                    new org.springframework.messaging.handler.invocation.InvocableHandlerMethod(listener,
                            OrderListener.class.getMethod("onOrder", String.class))
                            .invoke(org.springframework.messaging.support.MessageBuilder.withPayload("order 7").build(),
                                    "order 7");
                    assertThat(listener.seen).as("jobs' place, not the default's").isEqualTo(10);
                    assertThat(context.getBean(WatchedPools.class).admissions().get("dataSource").classified())
                            .containsEntry("listener " + OrderListener.class.getName() + " -> jobs", 1L);
                    listener.seen = -1;
                    listener.onOrder("called directly");
                    assertThat(listener.seen).as("no listener container ran it: the default's").isOne();
                });
    }

    @Test
    void aQuartzRuleNamesTheWorkloadOfTheJobsAQuartzWorkerRuns() throws Exception {
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=jobs", "db.bulkhead.work.rules[0].quartz=*")
                .run(context -> {
                    java.util.Properties quartz = new java.util.Properties();
                    quartz.setProperty("org.quartz.scheduler.instanceName", "work-rules-" + System.nanoTime());
                    quartz.setProperty("org.quartz.threadPool.threadCount", "1");
                    quartz.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
                    org.quartz.Scheduler scheduler = new org.quartz.impl.StdSchedulerFactory(quartz).getScheduler();
                    java.util.concurrent.CompletableFuture<Integer> seen = new java.util.concurrent.CompletableFuture<>();
                    try {
                        scheduler.start();
                        org.quartz.JobDataMap data = new org.quartz.JobDataMap();
                        data.put("dataSource", context.getBean(DataSource.class));
                        data.put("whileHeld", (java.util.function.IntSupplier) () -> active(context, "jobs") * 10
                                + active(context, "other"));
                        data.put("seen", seen);
                        scheduler.scheduleJob(org.quartz.JobBuilder.newJob(ReportJob.class).usingJobData(data).build(),
                                org.quartz.TriggerBuilder.newTrigger().startNow().build());
                        assertThat(seen.get(30, TimeUnit.SECONDS)).as("jobs' place, not the default's").isEqualTo(10);
                    } finally {
                        scheduler.shutdown(true);
                    }
                    assertThat(context.getBean(WatchedPools.class).admissions().get("dataSource").classified())
                            .containsEntry("quartz * -> jobs", 1L);
                });
    }

    @Test
    void aBatchRuleNamesTheWorkloadOfTheStepsOfItsJobAndARefusedChunkIsCountedForItsStep() {
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=jobs",
                        "db.bulkhead.work.rules[0].batch=importJob")
                .withConfiguration(AutoConfigurations.of(BulkheadEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=dbbulkheads")
                .run(context -> {
                    var repository = new org.springframework.batch.core.repository.support.ResourcelessJobRepository();
                    var operator = new org.springframework.batch.core.launch.support.TaskExecutorJobOperator();
                    operator.setJobRepository(repository);
                    operator.setJobRegistry(new org.springframework.batch.core.configuration.support.MapJobRegistry());
                    operator.afterPropertiesSet();
                    var transactions = new org.springframework.jdbc.support.JdbcTransactionManager(
                            context.getBean(DataSource.class));
                    int[] seen = {-1};
                    var load = new org.springframework.batch.core.step.builder.StepBuilder("load", repository)
                            .tasklet((contribution, chunk) -> {
                                seen[0] = active(context, "jobs") * 10 + active(context, "other");
                                return org.springframework.batch.infrastructure.repeat.RepeatStatus.FINISHED;
                            }, transactions).build();
                    var job = new org.springframework.batch.core.job.builder.JobBuilder("importJob", repository)
                            .start(load).build();
                    var run = operator.start(job, new org.springframework.batch.core.job.parameters.JobParameters());
                    assertThat(run.getStatus()).isEqualTo(org.springframework.batch.core.BatchStatus.COMPLETED);
                    assertThat(seen[0]).as("the chunk's transaction holds jobs' place, not the default's")
                            .isEqualTo(10);

                    // The job runs on a thread started before the place is held: one started by the holder would
                    // be part of its operation.
                    ExecutorService launcher = Executors.newSingleThreadExecutor();
                    try {
                        launcher.submit(() -> { }).get();
                        Permit held = context.getBean(BulkheadRegistry.class).template("jobs").gate().acquire();
                        try {
                            var refused = launcher.submit(() -> operator.start(job,
                                    new org.springframework.batch.core.job.parameters.JobParametersBuilder()
                                            .addLong("run", 2L).toJobParameters())).get();
                            assertThat(refused.getStatus()).as("jobs full: the step fails at its chunk")
                                    .isEqualTo(org.springframework.batch.core.BatchStatus.FAILED);
                        } finally {
                            held.close();
                        }
                    } finally {
                        launcher.shutdown();
                    }
                    assertThat(context.getBean(BulkheadsEndpoint.class).bulkheads().ungated().admission()
                            .refusedRuns()).containsExactly(Map.entry("Batch step importJob.load", 1L));
                });
    }

    @Test
    void aBatchOrListenerRuleWithoutANameStopsStartUpNamingTheProperty() {
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=jobs", "db.bulkhead.work.rules[0].batch= ")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.work.rules[0].batch", "no Batch job or step"));
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=jobs",
                        "db.bulkhead.work.rules[0].listener=com.example.*")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.work.rules[0].listener", "'com.example.*'"));
    }

    @Test
    void aWorkloadThatWaitsWhenFullLetsItsOperationWaitForAPlaceInsteadOfRefusingIt() {
        admitting.withPropertyValues("db.bulkhead.workloads.jobs.when-full=wait",
                "db.bulkhead.workloads.jobs.queue-wait=30s", "db.bulkhead.work.rules[0].workload=jobs",
                "db.bulkhead.work.rules[0].caller=" + getClass().getName()).run(context -> {
            var gate = context.getBean(BulkheadRegistry.class).template("jobs").gate();
            // Its one thread started before the place is held: one started by the holder would be part of its
            // operation.
            ExecutorService workers = Executors.newSingleThreadExecutor();
            try {
                workers.submit(() -> { }).get();
                Permit held = gate.acquire();
                Future<Integer> waiting;
                try {
                    waiting = workers.submit(() -> {
                        try (Connection connection = context.getBean(DataSource.class).getConnection()) {
                            return connection.isValid(1) ? 1 : 0;
                        }
                    });
                    Await.until("the second operation waits for the place", () -> gate.waiting() == 1);
                    assertThat(waiting).isNotDone();
                } finally {
                    held.close();
                }
                assertThat(waiting.get()).as("it ran once the place was free").isOne();
            } finally {
                workers.shutdown();
            }
        });
    }

    @Test
    void aWorkloadThatWaitsWhenFullTakesNoMaxQueuedOfItsOwnNorAZeroQueueWait() {
        runner.withPropertyValues("db.bulkhead.workloads.jobs.when-full=wait",
                        "db.bulkhead.workloads.jobs.max-queued=4", "db.bulkhead.workloads.jobs.queue-wait=5s")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.workloads.jobs.max-queued", "'4'", "when-full is wait"));
        runner.withPropertyValues("db.bulkhead.workloads.jobs.when-full=wait")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("queue-wait", "'0s'", "more than 0 while db.bulkhead.workloads.jobs.when-full"));
    }

    @Test
    void underDataSourceTransactionManagerATransactionalServiceIsAdmittedAndAGatedMethodItCallsJoinsItsTransaction() {
        admitting.withUserConfiguration(Ledger.class, Entries.class).run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThat(ledger.inTransaction(() -> active(context, "other")))
                    .as("the service's transaction holds the default workload's place").isOne();
            assertThat(ledger.inTransaction(() -> context.getBean(Entries.class).sameConnection(
                    DataSourceUtils.getConnection(context.getBean(DataSource.class)))))
                    .as("the gated method ran in the service's transaction, on its connection").isTrue();
            assertThat(active(context, "web")).isZero();
            assertThat(active(context, "other")).isZero();
        });
    }

    @Test
    void withoutADefaultWorkloadAGatedMethodInsideATransactionalServiceIsStillRefusedAsMisuse() {
        runner.withUserConfiguration(Ledger.class, Entries.class).run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThat(catchThrowable(() -> ledger.inTransaction(() -> context.getBean(Entries.class)
                    .sameConnection(null)))).isInstanceOf(dev.dbbulkhead.BulkheadMisuseException.class);
        });
    }

    @Test
    void aRefusalAfterConnectionsUsedOnlyReadOnlySaysNothingOfTheRequestWasWritten() {
        admitting.run(context -> {
            DataSource dataSource = context.getBean(DataSource.class);
            try (RequestCommits.Scope request = RequestCommits.track()) {
                for (int i = 0; i < 3; i++) {
                    try (Connection connection = dataSource.getConnection()) {
                        // What Spring does for @Transactional(readOnly = true) on the connection it binds.
                        connection.setReadOnly(true);
                        connection.setAutoCommit(false);
                        connection.createStatement().executeQuery("SELECT 1").close();
                        connection.commit();
                        connection.setAutoCommit(true);
                        connection.setReadOnly(false);
                    }
                }
                assertThat(refusedWhileTheDefaultIsHeldElsewhere(context).committedBefore()).isZero();
                try (Connection connection = dataSource.getConnection()) {
                    connection.createStatement().execute("SELECT 1");
                }
                assertThat(refusedWhileTheDefaultIsHeldElsewhere(context).committedBefore())
                        .as("a statement in auto-commit on a writable connection may have written").isOne();
            }
        });
    }

    @Test
    void theEndpointCountsTheRefusalsOfLaterOperationsOfRequestsAdmittedOnce() {
        admitting.withConfiguration(AutoConfigurations.of(BulkheadEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=dbbulkheads")
                .run(context -> {
                    refusedWhileTheDefaultIsHeldElsewhere(context);
                    try (RequestCommits.Scope request = RequestCommits.track()) {
                        try (Connection connection = context.getBean(DataSource.class).getConnection()) {
                            connection.createStatement().execute("SELECT 1");
                        }
                        refusedWhileTheDefaultIsHeldElsewhere(context);
                    }
                    var rules = context.getBean(BulkheadsEndpoint.class).workload("other").rules();
                    assertThat(rules).isNotNull();
                    assertThat(rules.refusedInProgress()).as("the request's second borrow, not the first refusal")
                            .isOne();
                });
    }

    /** The refusal of a borrow on this thread while another thread holds the default workload's one place. */
    private static BulkheadRejectedException refusedWhileTheDefaultIsHeldElsewhere(AssertableApplicationContext context)
            throws Exception {
        ExecutorService holder = Executors.newSingleThreadExecutor();
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try {
            Future<?> holding = holder.submit(() -> {
                try (Permit permit = context.getBean(BulkheadRegistry.class).template("other").gate().acquire()) {
                    held.countDown();
                    release.await();
                }
                return null;
            });
            held.await();
            Throwable refused = catchThrowable(() -> context.getBean(DataSource.class).getConnection().close());
            release.countDown();
            holding.get();
            assertThat(refused).isInstanceOf(BulkheadRejectedException.class);
            return (BulkheadRejectedException) refused;
        } finally {
            release.countDown();
            holder.shutdown();
        }
    }

    /** A service layer: {@code @Transactional}, no {@code @DbBulkhead}. */
    static class Ledger {

        @org.springframework.transaction.annotation.Transactional
        public <T> T inTransaction(Supplier<T> work) {
            return work.get();
        }
    }

    /** A gated entry, as README once recommended on the repository layer. */
    static class Entries {

        private final DataSource dataSource;

        Entries(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        @dev.dbbulkhead.annotation.DbBulkhead("web")
        public boolean sameConnection(Connection outer) {
            return DataSourceUtils.getConnection(dataSource) == outer;
        }
    }

    /** A scheduled job that takes a connection. */
    public static final class Archive {

        private final DataSource dataSource;
        volatile int runs;

        Archive(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        public void archive() throws java.sql.SQLException {
            try (Connection connection = dataSource.getConnection()) {
                runs++;
            }
        }
    }

    @Test
    void anExecutorRuleNamesTheWorkloadOfTheTasksOnItsThreads() {
        admitting.withUserConfiguration(MailExecutor.class)
                .withPropertyValues("db.bulkhead.work.rules[0].workload=jobs",
                        "db.bulkhead.work.rules[0].executor=mailExecutor")
                .run(context -> {
                    ThreadPoolTaskExecutor mail = context.getBean("mailExecutor", ThreadPoolTaskExecutor.class);
                    int[] seen = mail.submit(() -> {
                        try (Connection connection = context.getBean(DataSource.class).getConnection()) {
                            return new int[] {active(context, "jobs"), active(context, "other")};
                        }
                    }).get();
                    assertThat(seen).as("jobs' place, not the default's").containsExactly(1, 0);
                    assertThat(context.getBean(WatchedPools.class).admissions().get("dataSource").classified())
                            .containsEntry("executor mailExecutor -> jobs", 1L);
                });
    }

    @Test
    void whatOnlyTheDefaultCaughtIsReportedWithTheThreadAndTheExecutorItRanOn(CapturedOutput output) {
        admitting.withUserConfiguration(MailExecutor.class).run(context -> {
            ThreadPoolTaskExecutor mail = context.getBean("mailExecutor", ThreadPoolTaskExecutor.class);
            mail.submit(() -> {
                context.getBean(DataSource.class).getConnection().close();
                return null;
            }).get();
        });
        assertThat(output).contains("was taken by " + getClass().getName() + ".lambda$", "on thread 'mail-1' of executor"
                + " 'mailExecutor', and no rule named its workload: the default workload 'other' admitted it.");
    }

    @Test
    void anExecutorRuleNamingNoExecutorBeanStopsStartUp() {
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=jobs",
                        "db.bulkhead.work.rules[0].executor=mailExecutor")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.work.rules[0].executor", "'mailExecutor'", "no bean of that name"));
        admitting.withBean("mailExecutor", String.class, () -> "not an executor")
                .withPropertyValues("db.bulkhead.work.rules[0].workload=jobs",
                        "db.bulkhead.work.rules[0].executor=mailExecutor")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.work.rules[0].executor", "java.lang.String"));
    }

    /** An executor of the application's own, for its mail. */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    static class MailExecutor {

        @org.springframework.context.annotation.Bean
        ThreadPoolTaskExecutor mailExecutor() {
            ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
            executor.setThreadNamePrefix("mail-");
            executor.setCorePoolSize(1);
            return executor;
        }
    }

    @Test
    void whatBeansBorrowWhileTheyAreMadeRunsBeforeTheGatesOpenAndTheStartUpReportSaysSo(CapturedOutput output) {
        admitting.withBean(StartUpQuery.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(WatchedPools.class).admissions().get("dataSource").classified())
                    .as("nothing admitted while the beans were made").containsEntry("default other", 0L);
            context.getBean(UngatedStartUpReport.class).onApplicationEvent(new ApplicationReadyEvent(
                    new SpringApplication(), new String[0], context, java.time.Duration.ZERO));
            assertThat(output).contains("Start-up took 1 connection(s) of pool 'dataSource' that no rule classified"
                    + " — outside the gates while the beans were made", "from " + StartUpQuery.class.getName()
                    + ".<init>(");
            try (Connection connection = context.getBean(DataSource.class).getConnection()) {
                assertThat(active(context, "other")).as("the gates open once every bean is made").isOne();
            }
        });
    }

    /** A bean that reads the database while it is made, as a cache warmed in a constructor does. */
    static class StartUpQuery {

        StartUpQuery(JdbcTemplate jdbc) {
            jdbc.queryForObject("SELECT 1", Integer.class);
        }
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
    void admittedWhereConnectionsAreTakenTheOperationsOfARequestInProgressGoFirstUnlessAWorkloadSaysOtherwise() {
        admitting.withPropertyValues("db.bulkhead.workloads.jobs.criticality.in-progress-first=false").run(context -> {
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
            assertThat(registry.template("web").gate().config().admissionRules().inProgressFirst()).isTrue();
            assertThat(registry.template("other").gate().config().admissionRules().inProgressFirst()).isTrue();
            assertThat(registry.template("jobs").gate().config().admissionRules().isNone())
                    .as("its own false wins").isTrue();
        });
        runner.run(context -> assertThat(context.getBean(BulkheadRegistry.class).template("web").gate().config()
                .admissionRules().isNone()).as("without a default workload, as before: no rules, the fast path").isTrue());
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
                        .contains("db.bulkhead.work.default-workload", "'others'", "[web, other, jobs]"));
    }

    @Test
    void aRuleWithTwoSourcesOrNoneStopsStartUp() {
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=web",
                        "db.bulkhead.work.rules[0].caller=com.example", "db.bulkhead.work.rules[0].scheduled=*")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.work.rules[0]", "exactly one of http, scheduled, listener, quartz, batch, caller, executor"));
        admitting.withPropertyValues("db.bulkhead.work.rules[0].workload=web")
                .run(context -> assertThat(FailureReports.report(context.getStartupFailure()))
                        .contains("db.bulkhead.work.rules[0]", "exactly one of http, scheduled, listener, quartz, batch, caller, executor"));
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
