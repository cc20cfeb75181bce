package dev.dbbulkhead.autoconfigure.background;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.autoconfigure.UngatedWorkAutoConfiguration;
import dev.dbbulkhead.gate.RequestCommits;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.quartz.JobDataMap;
import org.quartz.Scheduler;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.configuration.support.MapJobRegistry;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.launch.support.TaskExecutorJobOperator;
import org.springframework.batch.core.repository.support.ResourcelessJobRepository;
import org.springframework.batch.core.step.Step;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.batch.infrastructure.support.transaction.ResourcelessTransactionManager;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.scheduling.annotation.AsyncAnnotationAdvisor;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;
import org.springframework.transaction.interceptor.TransactionAttributeSourceAdvisor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Each run of background work is a unit of work, as each HTTP request is: a scheduled method's run, an
 * {@code @Async} method's task, a listener method's message. Its later operations are those of a unit in progress — a
 * graceful shutdown lets them finish — and a run that begins inside a unit already tracked is part of it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class BackgroundUnitsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class, UngatedWorkAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class, TaskSchedulingAutoConfiguration.class,
                    TaskExecutionAutoConfiguration.class))
            .withUserConfiguration(BackgroundOn.class)
            .withPropertyValues("db.bulkhead.workloads.web.max-concurrent=1", "db.bulkhead.workloads.web.max-queued=0",
                    "db.bulkhead.workloads.jobs.max-concurrent=2", "db.bulkhead.workloads.jobs.max-queued=0");

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    @EnableAsync
    static class BackgroundOn {
    }

    @Test
    void aScheduledMethodsRunIsAUnitOfWorkOnTheSchedulersThread() {
        BackgroundJobs.Probe probe = new BackgroundJobs.Probe();
        runner.withBean(BackgroundJobs.Probe.class, () -> probe).withBean(BackgroundJobs.StartUpJob.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(probe.scheduledRunTracked.get(1, TimeUnit.MINUTES))
                            .as("the scheduler called the proxy, whose advice tracks the run").isTrue();
                });
    }

    @Test
    void anAsyncMethodsTaskIsAUnitOnTheExecutorsThreadAndItsCallerIsNone() {
        runner.withBean(BackgroundJobs.Reports.class).run(context -> {
            String seen = context.getBean(BackgroundJobs.Reports.class).mailed().get(1, TimeUnit.MINUTES);
            assertThat(seen).as("run on the executor's thread, tracked there")
                    .doesNotStartWith(Thread.currentThread().getName() + " ").endsWith(" true");
            assertThat(RequestCommits.isTracked()).as("the caller's thread").isFalse();
        });
    }

    @Test
    void aListenerMethodsMessageIsAUnitOfWorkAndAPlainMethodOfTheSameBeanIsNot() {
        runner.withBean(BackgroundJobs.Reports.class).run(context -> {
            BackgroundJobs.Reports reports = context.getBean(BackgroundJobs.Reports.class);
            assertThat(reports.onOrder("42")).isTrue();
            assertThat(reports.plain()).isFalse();
            assertThat(RequestCommits.isTracked()).as("the unit ended with the call").isFalse();
        });
    }

    @Test
    void aRunThatBeginsInsideAUnitAlreadyTrackedIsPartOfIt() {
        runner.withBean(BackgroundJobs.Reports.class).run(context -> {
            BackgroundJobs.Reports reports = context.getBean(BackgroundJobs.Reports.class);
            assertThat(reports.commitsSeen()).as("a unit of its own, with nothing committed yet").isZero();
            BulkheadTemplate web = context.getBean(BulkheadRegistry.class).template("web");
            try (RequestCommits.Scope request = RequestCommits.track()) {
                web.execute(status -> 1);
                assertThat(reports.commitsSeen()).as("the request's commit, not a fresh count").isOne();
            }
        });
    }

    @Test
    void aTransactionalRunsUnitBeginsBeforeItsTransactionAndAnAsyncOneOnlyOnceHandedToTheExecutor() {
        runner.withBean(BackgroundJobs.TransactionalReports.class).run(context -> {
            BackgroundJobs.TransactionalReports reports = context.getBean(BackgroundJobs.TransactionalReports.class);
            assertThat(reports.reconciled()).isTrue();
            assertThat(reports.mailed().get(1, TimeUnit.MINUTES)).isTrue();
            assertThat(Arrays.stream(((Advised) reports).getAdvisors()).map(BackgroundUnitsTests::kind))
                    .as("the advisors, outermost first").containsExactly("async", "unit", "transaction");
        });
    }

    private static String kind(Advisor advisor) {
        if (advisor instanceof AsyncAnnotationAdvisor) {
            return "async";
        }
        if (advisor instanceof TransactionAttributeSourceAdvisor
                || advisor instanceof BeanFactoryTransactionAttributeSourceAdvisor) {
            return "transaction";
        }
        return advisor.getAdvice().getClass().getSimpleName().equals("BackgroundUnits") ? "unit"
                : advisor.toString();
    }

    @Test
    void eachRunOfABatchStepBeanIsOneUnitAcrossItsChunksAndAStepThatIsNoBeanIsNone() {
        ResourcelessJobRepository repository = new ResourcelessJobRepository();
        List<Boolean> tracked = new CopyOnWriteArrayList<>();
        runner.withBean("load", Step.class, () -> twoChunks("load", repository, tracked)).run(context -> {
            TaskExecutorJobOperator operator = new TaskExecutorJobOperator();
            operator.setJobRepository(repository);
            operator.setJobRegistry(new MapJobRegistry());
            operator.afterPropertiesSet();
            Step bean = context.getBean("load", Step.class);
            assertThat(operator.start(new JobBuilder("importJob", repository).start(bean).build(), new JobParameters())
                    .getStatus()).isEqualTo(BatchStatus.COMPLETED);
            assertThat(tracked).as("both chunks of the bean's run, inside its unit").containsExactly(true, true);

            tracked.clear();
            Step notABean = twoChunks("other", repository, tracked);
            assertThat(operator.start(new JobBuilder("otherJob", repository).start(notABean).build(),
                    new JobParameters()).getStatus()).isEqualTo(BatchStatus.COMPLETED);
            assertThat(tracked).as("a step no bean post-processor saw").containsExactly(false, false);
            assertThat(RequestCommits.isTracked()).isFalse();
        });
    }

    /** A step of two chunks, each telling {@code tracked} whether it runs inside a unit. */
    private static Step twoChunks(String name, ResourcelessJobRepository repository, List<Boolean> tracked) {
        return new StepBuilder(name, repository).tasklet((contribution, chunk) -> {
            tracked.add(RequestCommits.isTracked());
            return tracked.size() < 2 ? RepeatStatus.CONTINUABLE : RepeatStatus.FINISHED;
        }, new ResourcelessTransactionManager()).build();
    }

    @Test
    void eachRunOfAJobOfAQuartzSchedulerBeanIsAUnitOfWork() throws Exception {
        Properties quartz = new Properties();
        quartz.setProperty("org.quartz.scheduler.instanceName", "background-units-" + System.nanoTime());
        quartz.setProperty("org.quartz.threadPool.threadCount", "1");
        quartz.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
        Scheduler made = new StdSchedulerFactory(quartz).getScheduler();
        runner.withBean(Scheduler.class, () -> made).run(context -> {
            Scheduler scheduler = context.getBean(Scheduler.class);
            CompletableFuture<Boolean> seen = new CompletableFuture<>();
            try {
                scheduler.start();
                JobDataMap data = new JobDataMap();
                data.put("seen", seen);
                scheduler.scheduleJob(org.quartz.JobBuilder.newJob(BackgroundJobs.TrackedQuartzJob.class).usingJobData(data)
                        .build(), TriggerBuilder.newTrigger().startNow().build());
                assertThat(seen.get(1, TimeUnit.MINUTES)).isTrue();
            } finally {
                scheduler.shutdown(true);
            }
        });
    }

    @Test
    void aFinalClassWithAScheduledMethodIsLeftAsItIsAndTheApplicationStarts() {
        runner.withBean(BackgroundJobs.FinalJob.class).run(context -> {
            assertThat(context).hasNotFailed();
            BackgroundJobs.FinalJob job = context.getBean(BackgroundJobs.FinalJob.class);
            assertThat(AopUtils.isAopProxy(job)).isFalse();
            assertThat(job.run()).isFalse();
        });
    }

    @Test
    void theLaterOperationsOfAScheduledRunAdmittedBeforeAShutdownAreAdmittedWhileNewWorkIsRefused() throws Exception {
        BackgroundJobs.Probe probe = new BackgroundJobs.Probe();
        runner.withBean(BackgroundJobs.Probe.class, () -> probe).withBean(BackgroundJobs.TwoStepJob.class)
                .withPropertyValues("db.bulkhead.work.default-workload=web",
                        "db.bulkhead.work.rules[0].workload=jobs", "db.bulkhead.work.rules[0].scheduled=*")
                .run(context -> {
                    assertThat(probe.firstOperationDone.await(1, TimeUnit.MINUTES)).isTrue();
                    BulkheadTemplate jobs = context.getBean(BulkheadRegistry.class).template("jobs");
                    // Work admitted and still running keeps the shutdown draining while the job takes its second step.
                    HeldOperations holder = HeldOperations.hold(jobs, 1);

                    ConfigurableApplicationContext application = context.getSourceApplicationContext();
                    Thread closing = Thread.ofPlatform().name("closing").start(application::close);
                    Await.until("the gates shut down", () -> jobs.gate().isShuttingDown());
                    BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class,
                            () -> jobs.execute(status -> 1));
                    assertThat(refused.reason()).as("new work").isEqualTo(RejectionReason.SHUTTING_DOWN);

                    probe.mayTakeSecond.countDown();
                    assertThat(probe.secondOperation.get(1, TimeUnit.MINUTES))
                            .as("the run's second operation, admitted as part of a unit in progress").isEqualTo(2);
                    holder.close();
                    closing.join();
                    assertThat(holder.failures).isEmpty();
                });
    }
}
