package dev.dbbulkhead.jpa.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.RequestCommits;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.jpa.JpaTestApplication;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.ScheduledMethodRunnable;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Admission where connections are taken, on a Spring Data JPA application under the {@code JpaTransactionManager},
 * shaped as most Spring applications are: a {@code @Transactional} service layer over repositories, and a scheduled
 * job, with no {@code @DbBulkhead} on the service. Naming the workloads in configuration is enough for the bound to
 * hold on the server; a repository annotated {@code @DbBulkhead} called from the service joins its transaction; a
 * nested {@code REQUIRES_NEW} never waits for the pool.
 */
@SpringBootTest(classes = {JpaTestApplication.class, AdmissionWhereConnectionsAreTakenUnderJpaTests.Accounts.class,
        AdmissionWhereConnectionsAreTakenUnderJpaTests.Registrations.class,
        AdmissionWhereConnectionsAreTakenUnderJpaTests.NightlyJob.class},
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"db.bulkhead.workloads.shop.max-concurrent=2", "db.bulkhead.workloads.shop.max-queued=0",
                "db.bulkhead.workloads.jobs.max-concurrent=1", "db.bulkhead.workloads.jobs.max-queued=0",
                "db.bulkhead.work.default-workload=shop",
                "db.bulkhead.work.rules[0].workload=jobs", "db.bulkhead.work.rules[0].scheduled=*",
                "spring.datasource.hikari.maximum-pool-size=2",
                "spring.datasource.hikari.data-source-properties.ApplicationName="
                        + AdmissionWhereConnectionsAreTakenUnderJpaTests.APPLICATION})
class AdmissionWhereConnectionsAreTakenUnderJpaTests {

    static final String APPLICATION = "admission-where-taken";

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    Accounts accounts;

    @Autowired
    NightlyJob job;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    WatchedPools watched;

    @Autowired
    PlatformTransactionManager transactionManager;

    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void releaseHolders() {
        release.countDown();
    }

    private AdmissionGate gate(String workload) {
        return registry.template(workload).gate();
    }

    private static int sessionsInTransaction() {
        return Integer.parseInt(JpaTestDatabase.sideQuery("SELECT count(*) FROM pg_stat_activity WHERE application_name"
                + " = '" + APPLICATION + "' AND state = 'idle in transaction'"));
    }

    /** Starts {@code holders} calls of the service that each hold their transaction open until {@link #release}. */
    private CountDownLatch holdTransactions(int holders) {
        CountDownLatch entered = new CountDownLatch(holders);
        for (int i = 0; i < holders; i++) {
            String name = "holder-" + i;
            Thread.ofVirtual().start(() -> accounts.registerAndHold(name, entered, release));
        }
        return entered;
    }

    @Test
    void aTransactionalServiceWithoutAnnotationsIsAdmittedBeforeItsTransactionBegins() throws Exception {
        assertThat(transactionManager).isInstanceOf(JpaTransactionManager.class);
        CountDownLatch entered = holdTransactions(2);
        assertThat(entered.await(30, TimeUnit.SECONDS)).as("both admitted").isTrue();
        Await.until("the server shows both transactions", () -> sessionsInTransaction() == 2,
                AdmissionWhereConnectionsAreTakenUnderJpaTests::sessionsInTransaction);
        assertThat(gate("shop").active()).isEqualTo(2);

        assertThatThrownBy(() -> accounts.register("third"))
                .as("refused before its transaction began: no connection, no EntityManager transaction")
                .isInstanceOf(CannotCreateTransactionException.class)
                .satisfies(refused -> assertThat(NestedExceptionUtils.getMostSpecificCause(refused))
                        .isInstanceOfSatisfying(BulkheadRejectedException.class, rejection -> {
                            assertThat(rejection.workload()).isEqualTo("shop");
                            assertThat(rejection.reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
                        }));
        assertThat(sessionsInTransaction()).as("the bound holds on the server").isEqualTo(2);

        release.countDown();
        Await.until("both holders done", () -> gate("shop").active() == 0);
        assertThat(accounts.register("fourth").getId()).isNotNull();
        assertThat(watched.admissions().get("dataSource").classified())
                .as("the service's transactions were admitted by the default workload")
                .containsKey("default shop").extractingByKey("default shop").satisfies(count ->
                        assertThat(count).isGreaterThanOrEqualTo(3L));
    }

    @Test
    void aRepositoryAnnotatedDbBulkheadCalledFromATransactionalServiceJoinsItsTransaction() {
        Customer first = accounts.registerTwiceThroughAnnotatedEntries("ada", false);
        assertThat(accounts.count("ada")).as("both in one committed transaction").isEqualTo(2);
        assertThat(first.getId()).isNotNull();

        assertThatThrownBy(() -> accounts.registerTwiceThroughAnnotatedEntries("grace", true))
                .isInstanceOf(IllegalStateException.class).hasMessage("changed my mind");
        assertThat(accounts.count("grace")).as("the joined operations rolled back with the service's").isZero();
        assertThat(gate("shop").active()).isZero();
    }

    @Test
    void aScheduledRunIsAdmittedByTheWorkloadItsRuleNames() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        job.holdNextRun(entered, release);
        ScheduledMethodRunnable run = new ScheduledMethodRunnable(job, NightlyJob.class.getMethod("archive"));
        CompletableFuture<Void> running = CompletableFuture.runAsync(run, command -> Thread.ofVirtual().start(command));
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(gate("jobs").active()).as("the job's transaction holds the jobs workload's place").isOne();
        assertThat(gate("shop").active()).isZero();
        release.countDown();
        running.get(30, TimeUnit.SECONDS);
        assertThat(gate("jobs").active()).isZero();
        assertThat(watched.admissions().get("dataSource").classified()).extractingByKey("scheduled * -> jobs")
                .satisfies(count -> assertThat(count).isPositive());
    }

    @Test
    void aScheduledRunIsOneUnitOfWorkWhoseTransactionsAreItsOperations() throws Exception {
        CompletableFuture<Integer> committed = CompletableFuture.supplyAsync(job::archiveTwice,
                command -> Thread.ofVirtual().start(command));
        assertThat(committed.get(30, TimeUnit.SECONDS)).as("both of the run's transactions counted in its unit")
                .isEqualTo(2);
        assertThat(RequestCommits.isTracked()).isFalse();
    }

    @Test
    void aNestedRequiresNewTakesASecondConnectionOnlyWhenOneIsFreeAndNeverASecondPlace() throws Exception {
        assertThat(accounts.registerWithAudit("linus")).as("a free connection: the nested transaction ran").isOne();

        CountDownLatch entered = holdTransactions(1);
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        // One connection held by the holder, one by this thread's transaction: none is free for the nested one.
        assertThatThrownBy(() -> accounts.registerWithAudit("ken"))
                .as("failed at once rather than waiting for a connection another holder keeps")
                .isInstanceOf(CannotCreateTransactionException.class)
                .satisfies(failure -> assertThat(causes(failure)).anySatisfy(cause -> assertThat(cause)
                        .isInstanceOf(SQLTransientConnectionException.class)
                        .hasMessageContaining("was free for a second connection of a thread that already holds one")));
        assertThat(gate("shop").active()).as("no second place was taken").isOne();
        release.countDown();
        Await.until("the holder done", () -> gate("shop").active() == 0);
    }

    private static List<Throwable> causes(Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable cause = failure; cause != null && !chain.contains(cause); cause = cause.getCause()) {
            chain.add(cause);
        }
        return chain;
    }

    /** The application's service layer: {@code @Transactional}, no {@code @DbBulkhead}. */
    @Service
    static class Accounts {

        private final CustomerRepository customers;
        private final Registrations registrations;
        private final org.springframework.beans.factory.ObjectProvider<Accounts> self;

        Accounts(CustomerRepository customers, Registrations registrations,
                 org.springframework.beans.factory.ObjectProvider<Accounts> self) {
            this.customers = customers;
            this.registrations = registrations;
            this.self = self;
        }

        @Transactional
        public Customer register(String name) {
            return customers.save(new Customer(name));
        }

        @Transactional
        public void registerAndHold(String name, CountDownLatch entered, CountDownLatch release) {
            customers.saveAndFlush(new Customer(name));
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        @Transactional
        public Customer registerTwiceThroughAnnotatedEntries(String name, boolean thenFail) {
            Customer first = registrations.register(name);
            registrations.register(name);
            if (thenFail) {
                throw new IllegalStateException("changed my mind");
            }
            return first;
        }

        @Transactional(readOnly = true)
        public long count(String name) {
            return customers.findAll().stream().filter(customer -> customer.getName().equals(name)).count();
        }

        /** Registers, then writes an audit row in a transaction of its own, nested in this one. */
        @Transactional
        public int registerWithAudit(String name) {
            customers.saveAndFlush(new Customer(name));
            return self.getObject().audit(name);
        }

        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public int audit(String name) {
            customers.saveAndFlush(new Customer(name + " (audit)"));
            return AdmissionGate.currentThreadHoldsBorrowPlace() ? 1 : 0;
        }
    }

    /** Entries annotated as README once recommended: on the repository layer's calls. */
    @Service
    static class Registrations {

        private final CustomerRepository customers;

        Registrations(CustomerRepository customers) {
            this.customers = customers;
        }

        @DbBulkhead("shop")
        public Customer register(String name) {
            return customers.save(new Customer(name));
        }
    }

    /** A scheduled job: its work goes through the service layer. */
    @Service
    static class NightlyJob {

        private final Accounts accounts;
        volatile CountDownLatch entered = new CountDownLatch(0);
        volatile CountDownLatch release = new CountDownLatch(0);

        NightlyJob(Accounts accounts) {
            this.accounts = accounts;
        }

        /**
         * Makes the next {@link #archive} hold its transaction: set through a method, as the bean is proxied (its
         * scheduled method is a unit of work) and a field of the proxy is not the bean's.
         */
        public void holdNextRun(CountDownLatch entered, CountDownLatch release) {
            this.entered = entered;
            this.release = release;
        }

        public void archive() {
            accounts.registerAndHold("archived", entered, release);
        }

        /** A run of two transactions through the service: what the run's unit counted as committed after both. */
        @Scheduled(cron = Scheduled.CRON_DISABLED)
        public int archiveTwice() {
            accounts.register("archived-first");
            accounts.register("archived-second");
            return RequestCommits.count();
        }
    }
}
