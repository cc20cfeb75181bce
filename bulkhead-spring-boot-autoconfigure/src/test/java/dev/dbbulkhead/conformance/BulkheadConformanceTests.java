package dev.dbbulkhead.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.CommitOutcomeUnknownException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.MisuseKind;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateListener;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The design's contract (docs/design.md: the gate, its invariants, the failure paths, the callback contract and
 * the reference demonstration) against a real PostgreSQL, for every form of the bulkhead. Letters in the display
 * names are those of the conformance list at the end of docs/design.md.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // per test, only against a hang; no assertion depends on time
abstract class BulkheadConformanceTests {

    private static final Duration LONG_WAIT = Duration.ofMinutes(1);

    static TestDatabase database;

    private final List<AutoCloseable> resources = new ArrayList<>();

    /** Builds the form under test: gate limits B, Q and queue wait, connections from {@code pool}. */
    abstract Bulkhead bulkhead(String workload, DataSource pool, int maxConcurrent, int maxQueued,
                               Duration queueWait);

    /** Builds the form under test around {@code gate}, applying {@code limits} to every transaction. */
    abstract Bulkhead bulkhead(AdmissionGate gate, DataSource pool, TransactionTimeouts limits);

    /** A bulkhead of B=2, Q=0 whose gate records the outcome of every released operation into {@code outcomes}. */
    Bulkhead recordingOutcomes(DataSource pool, List<ExecutionOutcome> outcomes) {
        GateListener recorder = new GateListener() {
            @Override
            public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
                outcomes.add(outcome);
            }
        };
        return bulkhead(new AdmissionGate("orders", GateConfig.builder().maxConcurrent(2).build(), recorder), pool,
                TransactionTimeouts.NONE);
    }

    @BeforeAll
    static void createSchema() {
        database = PostgresFixture.freshSchema();
        database.execute("CREATE TABLE item (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE)");
    }

    @AfterEach
    void closeResources() throws Exception {
        Collections.reverse(resources);
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }

    // --- a -------------------------------------------------------------------------------------------------

    @Test
    @DisplayName("a. reference demonstration: on virtual threads, pool 2, B=1, Q=0, the second operation is rejected")
    void referenceDemonstrationRejectsTheSecondOperationWhileTheFirstHoldsItsPermit() throws Exception {
        Bulkhead bulkhead = bulkhead("demo", pool(2), 1, 0, Duration.ZERO);
        CountDownLatch selected = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);

        CompletableFuture<Integer> first = inVirtualThread(() -> bulkhead.transaction(connection -> {
            assertThat(Thread.currentThread().isVirtual()).isTrue();
            int value = queryInt(connection, "SELECT 42");
            selected.countDown();
            hold(finish);
            return value;
        }));
        selected.await();
        String overload = inVirtualThread(() -> {
            assertThat(Thread.currentThread().isVirtual()).isTrue();
            try {
                bulkhead.transaction(connection -> queryInt(connection, "SELECT 1"));
                return "admitted";
            } catch (BulkheadRejectedException rejected) {
                return rejected.reason() == RejectionReason.ADMISSION_FULL ? "rejected" : rejected.reason().name();
            }
        }).get();
        finish.countDown();
        int query = first.get();
        int available = bulkhead.gate().availableExecutionPermits();

        System.out.printf("overload=%s%nquery=%d%navailable=%d%n", overload, query, available);
        assertThat(overload).isEqualTo("rejected");
        assertThat(query).isEqualTo(42);
        assertThat(available).isEqualTo(1);
    }

    // --- b -------------------------------------------------------------------------------------------------

    @Test
    @DisplayName("b. commit: the value comes back only after commit and close; another connection sees the row")
    void commitReturnsTheValueOnlyAfterCommitAndConnectionClose() throws Exception {
        HikariDataSource pool = pool(2);
        Bulkhead bulkhead = bulkhead("orders", pool, 2, 0, Duration.ZERO);

        long id = bulkhead.transaction(connection -> insert(connection, "b-committed"));

        assertThat(pool.getHikariPoolMXBean().getActiveConnections())
                .as("connection closed before the value was returned").isZero();
        assertThat(rowExists("b-committed")).as("visible from another connection").isTrue();
        assertThat(id).isPositive();
        assertAllPermitsBack(bulkhead.gate());
    }

    // --- c -------------------------------------------------------------------------------------------------

    @Test
    @DisplayName("c. an SQLException from the work rolls back and reaches the caller")
    void sqlExceptionRollsBack() throws Exception {
        Bulkhead bulkhead = bulkhead("orders", pool(2), 2, 0, Duration.ZERO);

        Throwable thrown = catchThrowable(() -> bulkhead.transaction(connection -> {
            insert(connection, "c-sql");
            return queryInt(connection, "SELECT 1 / 0");
        }));

        assertThat(sqlExceptionIn(thrown).getSQLState()).as("division_by_zero").isEqualTo("22012");
        assertThat(rowExists("c-sql")).isFalse();
        assertAllPermitsBack(bulkhead.gate());
    }

    static List<Throwable> uncheckedFailures() {
        return List.of(new IllegalStateException("work failed"), new SimulatedError("work failed hard"));
    }

    @ParameterizedTest(name = "c. a {0} from the work rolls back and reaches the caller unchanged")
    @MethodSource("uncheckedFailures")
    void uncheckedFailureRollsBackAndReachesTheCallerUnchanged(Throwable failure) throws Exception {
        Bulkhead bulkhead = bulkhead("orders", pool(2), 2, 0, Duration.ZERO);
        String row = "c-" + failure.getClass().getSimpleName();

        Throwable thrown = catchThrowable(() -> bulkhead.transaction(connection -> {
            insert(connection, row);
            throw sneaky(failure);
        }));

        assertThat(thrown).isSameAs(failure);
        assertThat(failure.getSuppressed()).as("the rollback succeeded").isEmpty();
        assertThat(rowExists(row)).isFalse();
        assertAllPermitsBack(bulkhead.gate());
    }

    @Test
    @DisplayName("c. a rollback that fails (backend ended under the work) is attached to the work's failure as suppressed")
    void failingRollbackIsAttachedAsSuppressed() throws Exception {
        HikariDataSource pool = pool(2);
        Bulkhead bulkhead = bulkhead("orders", pool, 2, 0, Duration.ZERO);

        Throwable thrown = catchThrowable(() -> bulkhead.transaction(connection -> {
            insert(connection, "c-rollback-fails");
            return queryInt(connection, "SELECT 1 FROM pg_terminate_backend(pg_backend_pid())");
        }));

        assertThat(sqlExceptionIn(thrown).getSQLState()).as("admin_shutdown").isEqualTo("57P01");
        assertThat(thrown.getSuppressed()).as("the failed rollback").isNotEmpty();
        assertThat(rowExists("c-rollback-fails")).isFalse();
        assertAllPermitsBack(bulkhead.gate());
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
        assertThat(bulkhead.<Integer>transaction(connection -> queryInt(connection, "SELECT 7")))
                .as("the pool replaced the ended connection").isEqualTo(7);
    }

    // --- d -------------------------------------------------------------------------------------------------

    @Test
    @DisplayName("d. B=1, Q=1: the second operation waits, the third is rejected at once with ADMISSION_FULL")
    void excessAdmissionsAreRejectedAtOnce() throws Exception {
        Bulkhead bulkhead = bulkhead("orders", pool(2), 1, 1, LONG_WAIT);
        HeldOperation first = holdingOperation(bulkhead, 1);
        CompletableFuture<Integer> second = inVirtualThread(
                () -> bulkhead.transaction(connection -> queryInt(connection, "SELECT 2")));
        Await.until("second operation parked for an execution permit", () -> bulkhead.gate().queueLength() == 1);

        Throwable third = catchThrowable(() -> bulkhead.transaction(connection -> queryInt(connection, "SELECT 3")));

        assertThat(third).isInstanceOfSatisfying(BulkheadRejectedException.class, rejected -> {
            assertThat(rejected.reason()).isEqualTo(RejectionReason.ADMISSION_FULL);
            assertThat(rejected.workload()).isEqualTo("orders");
        });
        assertThat(first.finish()).isEqualTo(1);
        assertThat(second.get()).isEqualTo(2);
        assertAllPermitsBack(bulkhead.gate());
    }

    @Test
    @DisplayName("d. invalid B, Q, queue wait and a B+Q overflow are refused with messages naming the value")
    void invalidLimitsAreRefusedNamingTheValue() {
        DataSource pool = pool(1);
        assertThatThrownBy(() -> bulkhead("orders", pool, 0, 0, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConcurrent").hasMessageContaining("was 0");
        assertThatThrownBy(() -> bulkhead("orders", pool, 1, -1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxQueued").hasMessageContaining("was -1");
        assertThatThrownBy(() -> bulkhead("orders", pool, 1, 0, Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queueWait").hasMessageContaining("PT-0.005S");
        assertThatThrownBy(() -> bulkhead("orders", pool, Integer.MAX_VALUE, 1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Integer.MAX_VALUE + " + 1 = 2147483648");
    }

    // --- e -------------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "e/k. queue wait {0}: QUEUE_TIMEOUT while B is taken, only the admission permit released")
    @ValueSource(strings = {"PT0.05S", "PT0S"})
    void expiredOrZeroQueueWaitReleasesOnlyTheAdmissionPermit(Duration queueWait) throws Exception {
        Bulkhead bulkhead = bulkhead("orders", pool(2), 1, 1, queueWait);
        HeldOperation first = holdingOperation(bulkhead, 1);

        // The first keeps its permit until after this returns: a zero wait cannot have waited for it.
        Throwable second = catchThrowable(() -> bulkhead.transaction(connection -> queryInt(connection, "SELECT 2")));

        assertRejected(second, RejectionReason.QUEUE_TIMEOUT);
        assertThat(bulkhead.gate().availableAdmissionPermits()).as("only the first still admitted").isEqualTo(1);
        assertThat(bulkhead.gate().availableExecutionPermits()).as("the first still runs").isZero();
        assertThat(bulkhead.gate().queueLength()).as("nobody left waiting").isZero();
        assertThat(first.finish()).isEqualTo(1);
        assertAllPermitsBack(bulkhead.gate());
    }

    // --- f -------------------------------------------------------------------------------------------------

    @Test
    @DisplayName("f. an interrupted wait gives INTERRUPTED, restores the interrupt flag and releases the admission permit")
    void interruptedWaitRestoresTheFlagAndReleasesTheAdmissionPermit() throws Exception {
        Bulkhead bulkhead = bulkhead("orders", pool(2), 1, 1, LONG_WAIT);
        HeldOperation first = holdingOperation(bulkhead, 1);
        CompletableFuture<RejectionReason> reason = new CompletableFuture<>();
        AtomicBoolean flagAfterwards = new AtomicBoolean();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                bulkhead.transaction(connection -> queryInt(connection, "SELECT 2"));
                reason.complete(null);
            } catch (BulkheadRejectedException rejected) {
                flagAfterwards.set(Thread.currentThread().isInterrupted());
                reason.complete(rejected.reason());
            } catch (Throwable unexpected) {
                reason.completeExceptionally(unexpected);
            }
        });
        Await.until("waiter parked for an execution permit", () -> bulkhead.gate().queueLength() == 1);

        waiter.interrupt();

        assertThat(reason.get()).isEqualTo(RejectionReason.INTERRUPTED);
        assertThat(flagAfterwards).as("interrupt flag restored").isTrue();
        assertThat(bulkhead.gate().availableAdmissionPermits()).as("only the first still admitted").isEqualTo(1);
        assertThat(first.finish()).isEqualTo(1);
        assertAllPermitsBack(bulkhead.gate());
    }

    // --- g -------------------------------------------------------------------------------------------------

    @Test
    @DisplayName("g. a caller that times out leaves the permits with the running work until its cleanup ends")
    void callerTimeoutLeavesPermitsWithTheRunningWork() throws Exception {
        assertPermitsOutliveTheCaller(Executors.newVirtualThreadPerTaskExecutor(), false);
    }

    @Test
    @DisplayName("g. a cancelled future (interrupting its platform thread) leaves the permits with the running work")
    void cancelledFutureLeavesPermitsWithTheRunningWork() throws Exception {
        assertPermitsOutliveTheCaller(Executors.newSingleThreadExecutor(), true);
    }

    private void assertPermitsOutliveTheCaller(ExecutorService executor, boolean cancel) throws Exception {
        resources.add(executor::shutdownNow);
        HikariDataSource pool = pool(2);
        Bulkhead bulkhead = bulkhead("orders", pool, 1, 0, Duration.ZERO);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        AtomicBoolean workCompleted = new AtomicBoolean();
        CountDownLatch workStarted = new CountDownLatch(1);
        CountDownLatch callReturned = new CountDownLatch(1);
        try (Connection lockHolder = database.connect(); Statement lock = lockHolder.createStatement()) {
            lock.execute("SELECT pg_advisory_lock(4242)");
            Future<Integer> call = executor.submit(() -> {
                try {
                    return bulkhead.transaction(connection -> {
                        mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                        try {
                            workStarted.countDown();
                            // Blocks in the database, where neither a timeout nor an interrupt of the caller reaches.
                            int value = queryInt(connection, "SELECT 5 FROM pg_advisory_xact_lock(4242)");
                            workCompleted.set(true);
                            return value;
                        } finally {
                            inFlight.decrementAndGet();
                        }
                    });
                } finally {
                    callReturned.countDown();
                }
            });
            workStarted.await();
            assertThatThrownBy(() -> call.get(20, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            if (cancel) {
                assertThat(call.cancel(true)).isTrue();
            }

            assertThat(bulkhead.gate().availableExecutionPermits()).as("permit kept by the running work").isZero();
            Throwable another = catchThrowable(() -> bulkhead.transaction(connection -> queryInt(connection, "SELECT 6")));
            assertRejected(another, RejectionReason.ADMISSION_FULL);
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isEqualTo(1);

            lock.execute("SELECT pg_advisory_unlock(4242)");
        }
        callReturned.await();
        assertThat(workCompleted).as("the work ran to its end after the caller gave up").isTrue();
        assertThat(mostInFlight).hasValueLessThanOrEqualTo(1);
        assertAllPermitsBack(bulkhead.gate());
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
    }

    // --- h -------------------------------------------------------------------------------------------------

    @Test
    @DisplayName("h. SET LOCAL statement_timeout ends pg_sleep(2) with 57014; permits back, the same connection serves on")
    void serverStatementTimeoutRollsBackAndTheNextOperationSucceeds() throws Exception {
        HikariDataSource pool = pool(1);
        Bulkhead bulkhead = bulkhead("orders", pool, 1, 0, Duration.ZERO);

        Throwable thrown = catchThrowable(() -> bulkhead.transaction(connection -> {
            insert(connection, "h-timed-out");
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET LOCAL statement_timeout = '100ms'");
                statement.execute("SELECT pg_sleep(2)");
            }
            return 0;
        }));

        assertThat(sqlExceptionIn(thrown).getSQLState()).as("query_canceled").isEqualTo("57014");
        assertThat(rowExists("h-timed-out")).isFalse();
        assertAllPermitsBack(bulkhead.gate());
        String timeoutAfterwards = bulkhead.transaction(connection -> {
            try (Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SHOW statement_timeout")) {
                rs.next();
                return rs.getString(1);
            }
        });
        assertThat(timeoutAfterwards).as("SET LOCAL ended with its transaction").isEqualTo("0");
        assertThat(pool.getHikariPoolMXBean().getTotalConnections()).as("same single connection").isEqualTo(1);
    }

    // --- i -------------------------------------------------------------------------------------------------

    @Test
    @DisplayName("i. a pool exhausted outside the gate: the pool's timeout reaches the caller, work skipped, permits back")
    void poolExhaustedOutsideTheGateSkipsTheWorkAndReleasesThePermits() throws Exception {
        HikariDataSource pool = pool(1);
        Bulkhead bulkhead = bulkhead("orders", pool, 1, 0, Duration.ZERO);
        AtomicBoolean workRan = new AtomicBoolean();
        Throwable thrown;
        try (Connection outsideTheGate = pool.getConnection()) {
            thrown = catchThrowable(() -> bulkhead.transaction(connection -> {
                workRan.set(true);
                return 0;
            }));
        }

        assertThat((Throwable) sqlExceptionIn(thrown)).isInstanceOf(SQLTransientConnectionException.class);
        assertThat(workRan).isFalse();
        assertAllPermitsBack(bulkhead.gate());
        assertThat(bulkhead.<Integer>transaction(connection -> queryInt(connection, "SELECT 8"))).isEqualTo(8);
    }

    // --- k -------------------------------------------------------------------------------------------------

    @Test
    @DisplayName("k. with B=1, timed waiters are served in arrival order")
    void timedWaitersAreServedInArrivalOrder() throws Exception {
        Bulkhead bulkhead = bulkhead("orders", pool(2), 1, 3, LONG_WAIT);
        HeldOperation first = holdingOperation(bulkhead, 0);
        List<Integer> servedOrder = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Integer>> waiters = new ArrayList<>();
        for (int arrival = 1; arrival <= 3; arrival++) {
            int id = arrival;
            waiters.add(inVirtualThread(() -> bulkhead.transaction(connection -> {
                servedOrder.add(id);
                return id;
            })));
            Await.until("waiter " + id + " parked", () -> bulkhead.gate().queueLength() == id);
        }

        first.release();

        for (CompletableFuture<Integer> waiter : waiters) {
            waiter.get();
        }
        first.result().get();
        assertThat(servedOrder).containsExactly(1, 2, 3);
        assertAllPermitsBack(bulkhead.gate());
    }

    // --- l -------------------------------------------------------------------------------------------------

    @Test
    @DisplayName("l. reentrant entry of the same or another bulkhead is misuse; no permit and no connection taken")
    void reentrantEntryIsMisuse() throws Exception {
        HikariDataSource pool = pool(3);
        Bulkhead orders = bulkhead("orders", pool, 2, 0, Duration.ZERO);
        Bulkhead reports = bulkhead("reports", pool, 2, 0, Duration.ZERO);

        List<Throwable> inner = orders.transaction(connection -> {
            List<Throwable> thrown = new ArrayList<>();
            thrown.add(catchThrowable(() -> orders.transaction(c -> 1)));
            thrown.add(catchThrowable(() -> reports.transaction(c -> 1)));
            assertThat(orders.gate().availableExecutionPermits()).as("only the outer permit").isEqualTo(1);
            assertAllPermitsBack(reports.gate());
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("only the outer connection").isEqualTo(1);
            return thrown;
        });

        assertThat(inner).allSatisfy(thrown -> assertThat(thrown)
                .isInstanceOfSatisfying(BulkheadMisuseException.class,
                        misuse -> assertThat(misuse.kind()).isEqualTo(MisuseKind.REENTRANT_ENTRY)));
        assertThat(((BulkheadMisuseException) inner.get(1)).workload()).isEqualTo("reports");
        assertAllPermitsBack(orders.gate());
    }

    @Test
    @DisplayName("l. entry inside an active Spring transaction is misuse; no permit and no connection taken")
    void entryInsideAnActiveSpringTransactionIsMisuse() {
        HikariDataSource pool = pool(3);
        Bulkhead bulkhead = bulkhead("orders", pool, 2, 0, Duration.ZERO);
        TransactionTemplate outer = new TransactionTemplate(new DataSourceTransactionManager(pool));

        Throwable thrown = outer.execute(status -> {
            Throwable misuse = catchThrowable(() -> bulkhead.transaction(connection -> 1));
            assertAllPermitsBack(bulkhead.gate());
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("only the outer connection").isEqualTo(1);
            return misuse;
        });

        assertThat(thrown).isInstanceOfSatisfying(BulkheadMisuseException.class, misuse -> {
            assertThat(misuse.kind()).isEqualTo(MisuseKind.ACTIVE_TRANSACTION);
            assertThat(misuse.workload()).isEqualTo("orders");
        });
    }

    // --- j -------------------------------------------------------------------------------------------------

    @Test
    @DisplayName("j. 1,000 mixed operations from 250 virtual threads: limits held throughout, every permit and connection back")
    void mixedFailuresFromManyVirtualThreadsLeaveNothingBehind() throws Exception {
        int maxConcurrent = 3;
        int maxQueued = 12;
        HikariDataSource pool = pool(maxConcurrent + 2);
        Bulkhead bulkhead = bulkhead("mixed", pool, maxConcurrent, maxQueued, Duration.ofMillis(20));
        AdmissionGate gate = bulkhead.gate();
        MixedLoad load = new MixedLoad(bulkhead, pool);

        load.run(250, 4);
        System.out.println(bulkhead.getClass().getEnclosingClass().getSimpleName() + " " + load);

        assertThat(load.operations()).as("operations run to an outcome").isEqualTo(1_000);
        assertThat(load.mostInFlight()).as("in-flight inside the work").isLessThanOrEqualTo(maxConcurrent);
        assertThat(load.mostAdmitted()).as("admitted, sampled").isLessThanOrEqualTo(maxConcurrent + maxQueued);
        assertThat(load.unexpected()).as("outcomes outside the contract").isEmpty();
        assertThat(load.outcomeKinds()).as("every kind of outcome happened")
                .contains("committed", "sql-error", "runtime", "error", "statement-timeout", "interrupted")
                .containsAnyOf("rejected:ADMISSION_FULL", "rejected:QUEUE_TIMEOUT");
        assertAllPermitsBack(gate);
        assertThat(gate.queueLength()).isZero();
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
        assertThat(rowCount("j-")).as("exactly the committed inserts are stored").isEqualTo(load.committed());
    }

    // --- commit outcome ------------------------------------------------------------------------------------

    @Test
    @DisplayName("outcomes: committed, rolled back, and failed (no connection) are reported to the gate's listener")
    void everyReleaseReportsItsOutcome() throws Exception {
        HikariDataSource pool = pool(1);
        List<ExecutionOutcome> outcomes = new CopyOnWriteArrayList<>();
        Bulkhead bulkhead = recordingOutcomes(pool, outcomes);

        bulkhead.transaction(connection -> insert(connection, "o-committed"));
        catchThrowable(() -> bulkhead.transaction(connection -> queryInt(connection, "SELECT 1 / 0")));
        try (Connection outsideTheGate = pool.getConnection()) {
            catchThrowable(() -> bulkhead.transaction(connection -> 1));
        }

        assertThat(outcomes).containsExactly(ExecutionOutcome.COMMITTED, ExecutionOutcome.ROLLED_BACK,
                ExecutionOutcome.FAILED);
    }

    @Test
    @DisplayName("transactions: each one begun is told before its release, with what ended it; none without a connection")
    void everyTransactionIsToldBeforeItsReleaseWithWhatEndedIt() throws Exception {
        HikariDataSource pool = pool(1);
        List<String> told = new CopyOnWriteArrayList<>();
        GateListener recorder = new GateListener() {
            private long transactionNanos;

            @Override
            public void onTransactionEnded(String workload, ExecutionOutcome outcome, long transactionNanos,
                                           Throwable failure) {
                this.transactionNanos = transactionNanos;
                told.add("transaction " + outcome.tagValue()
                        + (failure == null ? "" : " by " + sqlExceptionIn(failure).getSQLState()));
            }

            @Override
            public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
                told.add("released " + outcome.tagValue()
                        + (transactionNanos > heldNanos ? " sooner than its transaction ended" : ""));
                transactionNanos = 0;
            }
        };
        Bulkhead bulkhead = bulkhead(new AdmissionGate("orders", GateConfig.builder().build(), recorder), pool,
                TransactionTimeouts.NONE);

        bulkhead.transaction(connection -> insert(connection, "t-committed"));
        catchThrowable(() -> bulkhead.transaction(connection -> queryInt(connection, "SELECT 1 / 0")));
        try (Connection outsideTheGate = pool.getConnection()) {
            catchThrowable(() -> bulkhead.transaction(connection -> 1));
        }

        assertThat(told).containsExactly("transaction committed", "released committed",
                "transaction rolled_back by 22012", "released rolled_back", "released failed");
    }

    @Test
    @DisplayName("outcome unknown: the backend ended after the work and before the commit gives CommitOutcomeUnknownException")
    void backendEndedBeforeCommitMakesTheOutcomeUnknown() throws Exception {
        HikariDataSource pool = pool(2);
        List<ExecutionOutcome> outcomes = new CopyOnWriteArrayList<>();
        Bulkhead bulkhead = recordingOutcomes(pool, outcomes);

        Throwable thrown = catchThrowable(() -> bulkhead.transaction(connection -> {
            insert(connection, "u-unknown");
            int backend = queryInt(connection, "SELECT pg_backend_pid()");
            endBackendAndWaitUntilGone(backend);
            return backend;
        }));

        assertThat(thrown).isInstanceOfSatisfying(CommitOutcomeUnknownException.class, unknown -> {
            assertThat(unknown.workload()).isEqualTo("orders");
            assertThat(unknown).hasMessageContaining("do not retry it blindly");
            assertThat((Throwable) sqlExceptionIn(unknown.getCause())).isNotNull();
        });
        assertThat(outcomes).containsExactly(ExecutionOutcome.UNKNOWN);
        assertThat(rowExists("u-unknown")).as("here the server never saw the commit").isFalse();
        assertAllPermitsBack(bulkhead.gate());
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
    }

    @Test
    @DisplayName("outcome known: a deferred constraint that fails at commit is a plain rollback, not unknown")
    void deferredConstraintFailingAtCommitIsAKnownRollback() throws Exception {
        database.execute("CREATE TABLE IF NOT EXISTS deferred_item (name text,"
                + " CONSTRAINT deferred_item_unique UNIQUE (name) DEFERRABLE INITIALLY DEFERRED)");
        HikariDataSource pool = pool(2);
        List<ExecutionOutcome> outcomes = new CopyOnWriteArrayList<>();
        Bulkhead bulkhead = recordingOutcomes(pool, outcomes);

        Throwable thrown = catchThrowable(() -> bulkhead.transaction(connection -> {
            try (Statement statement = connection.createStatement()) {
                // Both inserts succeed; the constraint is checked only when the commit runs.
                return statement.executeUpdate("INSERT INTO deferred_item VALUES ('twice'), ('twice')");
            }
        }));

        assertThat(thrown).isNotInstanceOf(CommitOutcomeUnknownException.class);
        assertThat(sqlExceptionIn(thrown).getSQLState()).as("unique_violation").isEqualTo("23505");
        assertThat(outcomes).containsExactly(ExecutionOutcome.ROLLED_BACK);
        try (Connection side = database.connect()) {
            assertThat(queryInt(side, "SELECT count(*) FROM deferred_item")).isZero();
        }
        assertAllPermitsBack(bulkhead.gate());
    }

    static void endBackendAndWaitUntilGone(int backend) throws SQLException {
        endBackendAndWaitUntilGone(database, backend);
    }

    /** Ends {@code backend} with pg_terminate_backend from a side connection and waits until the server lists it no more. */
    static void endBackendAndWaitUntilGone(TestDatabase database, int backend) throws SQLException {
        try (Connection side = database.connect(); Statement statement = side.createStatement()) {
            statement.execute("SELECT pg_terminate_backend(" + backend + ")");
            Await.until("backend " + backend + " gone", () -> {
                try {
                    return queryInt(side, "SELECT count(*) FROM pg_stat_activity WHERE pid = " + backend) == 0;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
    }

    // --- timeouts and deadlines ----------------------------------------------------------------------------

    Bulkhead limited(DataSource pool, int maxQueued, Duration queueWait, TransactionTimeouts limits) {
        GateConfig config = GateConfig.builder().maxConcurrent(1).maxQueued(maxQueued).queueWait(queueWait).build();
        return bulkhead(new AdmissionGate("orders", config), pool, limits);
    }

    @Test
    @DisplayName("statement-timeout: SET LOCAL first; a statement over it fails with 57014; the next transaction runs without it")
    void statementTimeoutEndsWithItsTransaction() throws Exception {
        HikariDataSource pool = pool(1);
        Bulkhead bulkhead = limited(pool, 0, Duration.ZERO,
                TransactionTimeouts.of(Duration.ofMillis(100), null, null));
        String[] seenInside = new String[1];

        Throwable thrown = catchThrowable(() -> bulkhead.transaction(connection -> {
            seenInside[0] = setting(connection, "statement_timeout");
            return queryInt(connection, "SELECT 1 FROM pg_sleep(2)");
        }));

        assertThat(seenInside[0]).isEqualTo("100");
        assertThat(sqlExceptionIn(thrown).getSQLState()).as("query_canceled").isEqualTo("57014");
        assertAllPermitsBack(bulkhead.gate());
        try (Connection sameConnection = pool.getConnection()) {
            assertThat(setting(sameConnection, "statement_timeout")).as("nothing leaked to the next borrower").isEqualTo("0");
        }
        assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isEqualTo(1);
    }

    @Test
    @DisplayName("lock-timeout: a lock wait over it fails with 55P03")
    void lockTimeoutEndsALongLockWait() throws Exception {
        database.execute("CREATE TABLE IF NOT EXISTS locked_row (id int PRIMARY KEY, n int)",
                "INSERT INTO locked_row VALUES (1, 0) ON CONFLICT DO NOTHING");
        HikariDataSource pool = pool(1);
        Bulkhead bulkhead = limited(pool, 0, Duration.ZERO, TransactionTimeouts.of(null, Duration.ofMillis(100), null));

        Throwable thrown;
        try (Connection holder = database.connect(); Statement lock = holder.createStatement()) {
            holder.setAutoCommit(false);
            lock.execute("SELECT n FROM locked_row WHERE id = 1 FOR UPDATE");
            thrown = catchThrowable(() -> bulkhead.transaction(connection -> {
                try (Statement update = connection.createStatement()) {
                    return update.executeUpdate("UPDATE locked_row SET n = n + 1 WHERE id = 1");
                }
            }));
            holder.rollback();
        }

        assertThat(sqlExceptionIn(thrown).getSQLState()).as("lock_not_available").isEqualTo("55P03");
        assertAllPermitsBack(bulkhead.gate());
    }

    @Test
    @DisplayName("deadline: the queue wait is taken off the budget, and what remains caps statement_timeout")
    void queueWaitShortensTheStatementTimeout() throws Exception {
        long deadlineMillis = 60_000;
        Bulkhead bulkhead = limited(pool(2), 1, LONG_WAIT,
                TransactionTimeouts.of(Duration.ofMillis(deadlineMillis), null, Duration.ofMillis(deadlineMillis)));
        HeldOperation first = holdingOperation(bulkhead, 1);
        CompletableFuture<String> second = inVirtualThread(
                () -> bulkhead.transaction(connection -> setting(connection, "statement_timeout")));
        Await.until("second parked", () -> bulkhead.gate().queueLength() == 1);
        long parkedAt = System.nanoTime();
        long queueWaitAtLeast = 20;
        Await.until(queueWaitAtLeast + " ms of queue wait",
                () -> System.nanoTime() - parkedAt >= TimeUnit.MILLISECONDS.toNanos(queueWaitAtLeast));

        first.release();

        assertThat(Long.parseLong(second.get())).isLessThanOrEqualTo(deadlineMillis - queueWaitAtLeast);
        first.result().get();
        assertAllPermitsBack(bulkhead.gate());
    }

    @Test
    @DisplayName("deadline: a per-call budget spent in the queue is a QUEUE_TIMEOUT that never touches the pool")
    void budgetSpentInTheQueueIsARejectionWithoutAConnection() throws Exception {
        HikariDataSource pool = pool(2);
        Bulkhead bulkhead = limited(pool, 1, LONG_WAIT, TransactionTimeouts.NONE);
        HeldOperation first = holdingOperation(bulkhead, 1);

        Throwable second = catchThrowable(() -> bulkhead.transaction(Duration.ofMillis(30), connection -> 2));

        assertRejected(second, RejectionReason.QUEUE_TIMEOUT);
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("only the first's connection").isEqualTo(1);
        first.finish();
        assertAllPermitsBack(bulkhead.gate());
    }

    @Test
    @DisplayName("deadline: a per-call budget past PostgreSQL's range caps nothing and never wraps to a 1 ms timeout")
    void theLongestPerCallDeadlineLeavesTheStatementTimeoutAsConfigured() throws Exception {
        Bulkhead bulkhead = limited(pool(1), 0, Duration.ZERO,
                TransactionTimeouts.of(Duration.ofMinutes(1), null, null));

        String seenInside = bulkhead.transaction(Duration.ofNanos(Long.MAX_VALUE),
                connection -> setting(connection, "statement_timeout"));

        assertThat(seenInside).isEqualTo("60000");
        assertAllPermitsBack(bulkhead.gate());
    }

    @Test
    @DisplayName("setup: SET LOCAL on a connection whose backend ended fails with that failure, not with the pool's closed connection")
    void aFailedSetLocalOnABrokenConnectionReachesTheCallerAsItWas() throws Exception {
        HikariDataSource pool = pool(1);
        DataSource lendingEndedBackends = new LendingEndedBackends(pool);
        GateConfig config = GateConfig.builder().maxConcurrent(1).build();
        Bulkhead bulkhead = bulkhead(new AdmissionGate("orders", config), lendingEndedBackends,
                TransactionTimeouts.of(Duration.ofMinutes(1), null, null));

        Throwable thrown = catchThrowable(() -> bulkhead.transaction(connection -> queryInt(connection, "SELECT 1")));

        SQLException original = sqlExceptionIn(thrown);
        assertThat(original.getSQLState()).as("admin_shutdown or connection_failure, as the driver saw it")
                .isIn("57P01", "08006");
        assertThat(original.getSuppressed()).as("the failure to ask the closed connection what database it is")
                .anySatisfy(suppressed -> assertThat(suppressed).hasMessageContaining("Connection is closed"));
        assertAllPermitsBack(bulkhead.gate());
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
    }

    /** Lends connections of {@code pool} whose backend has just been ended, as a server restart would leave them. */
    static final class LendingEndedBackends extends org.springframework.jdbc.datasource.DelegatingDataSource {

        LendingEndedBackends(DataSource pool) {
            super(pool);
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = super.getConnection();
            endBackendAndWaitUntilGone(queryInt(connection, "SELECT pg_backend_pid()"));
            return connection;
        }
    }

    static String setting(Connection connection, String name) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT setting FROM pg_settings WHERE name = ?")) {
            query.setString(1, name);
            try (ResultSet rs = query.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    // --- helpers -------------------------------------------------------------------------------------------

    HikariDataSource pool(int size) {
        HikariDataSource pool = database.pool(size);
        resources.add(pool);
        return pool;
    }

    /**
     * Starts an operation in a virtual thread that selects {@code value}, then holds its permit until it is told to
     * finish — at the latest when the test ends, so that a failed assertion never leaves it holding a connection.
     */
    HeldOperation holdingOperation(Bulkhead bulkhead, int value) throws InterruptedException {
        CountDownLatch finish = new CountDownLatch(1);
        resources.add(finish::countDown);
        CountDownLatch running = new CountDownLatch(1);
        CompletableFuture<Integer> operation = inVirtualThread(() -> bulkhead.transaction(connection -> {
            int selected = queryInt(connection, "SELECT " + value);
            running.countDown();
            hold(finish);
            return selected;
        }));
        running.await();
        return new HeldOperation(finish, operation);
    }

    /** An operation holding its permits until {@link #release()}; {@code result} is what it selected. */
    record HeldOperation(CountDownLatch holding, CompletableFuture<Integer> result) {

        /** Lets the operation end. */
        void release() {
            holding.countDown();
        }

        /** Lets the operation end and returns what it selected. */
        int finish() throws Exception {
            release();
            return result.get();
        }
    }

    static <T> CompletableFuture<T> inVirtualThread(Callable<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                result.complete(task.call());
            } catch (Throwable failure) {
                result.completeExceptionally(failure);
            }
        });
        return result;
    }

    /** Waits for {@code latch} whatever interrupts arrive, then restores the interrupt flag. */
    static void hold(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Rethrows an unchecked throwable as it is; the cast only satisfies the compiler. */
    static RuntimeException sneaky(Throwable unchecked) {
        if (unchecked instanceof RuntimeException runtime) {
            throw runtime;
        }
        throw (Error) unchecked;
    }

    static void assertRejected(Throwable thrown, RejectionReason reason) {
        assertThat(thrown).isInstanceOfSatisfying(BulkheadRejectedException.class,
                rejected -> assertThat(rejected.reason()).isEqualTo(reason));
    }

    static void assertAllPermitsBack(AdmissionGate gate) {
        assertThat(gate.availableExecutionPermits()).as("execution permits of " + gate.workload())
                .isEqualTo(gate.config().maxConcurrent());
        assertThat(gate.availableAdmissionPermits()).as("admission permits of " + gate.workload())
                .isEqualTo(gate.config().maxAdmitted());
    }

    static SQLException sqlExceptionIn(Throwable thrown) {
        for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql;
            }
        }
        throw new AssertionError("No SQLException in the cause chain of " + thrown, thrown);
    }

    static int queryInt(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    static long insert(Connection connection, String name) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO item (name) VALUES (?) RETURNING id")) {
            insert.setString(1, name);
            try (ResultSet rs = insert.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static boolean rowExists(String name) throws SQLException {
        return rowExists(database, name);
    }

    /** Whether table {@code item} of {@code database} holds a row named {@code name}, seen from a side connection. */
    static boolean rowExists(TestDatabase database, String name) throws SQLException {
        try (Connection side = database.connect();
             PreparedStatement query = side.prepareStatement("SELECT count(*) FROM item WHERE name = ?")) {
            query.setString(1, name);
            try (ResultSet rs = query.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 1;
            }
        }
    }

    static long rowCount(String prefix) throws SQLException {
        try (Connection side = database.connect();
             PreparedStatement query = side.prepareStatement("SELECT count(*) FROM item WHERE name LIKE ?")) {
            query.setString(1, prefix + "%");
            try (ResultSet rs = query.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
