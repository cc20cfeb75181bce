package dev.dbbulkhead.conformance;

import static dev.dbbulkhead.conformance.BulkheadConformanceTests.assertAllPermitsBack;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.conformance.FaultInjectionSoak.Kind;
import dev.dbbulkhead.conformance.FaultInjectionSoak.Reported;
import dev.dbbulkhead.conformance.FaultInjectionSoak.Workload;
import dev.dbbulkhead.conformance.FaultInjectionSoak.Write;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.GateLending;
import dev.dbbulkhead.gate.LendingPool;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateListener;
import dev.dbbulkhead.gate.LimitHistory;
import dev.dbbulkhead.gate.QueueDiscipline;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.jdbc.TransactionTimeouts;
import dev.dbbulkhead.limit.AdaptiveLimit;
import dev.dbbulkhead.limit.AdaptiveLimitConfig;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * The fault-injection soak on a real PostgreSQL (see {@link FaultInjectionSoak} and docs/reliability.md). In CI it
 * runs a few thousand operations with a fixed seed; a long run takes its size and seed from system properties:
 *
 * <pre>{@code ./mvnw -pl bulkhead-spring-boot-autoconfigure -am verify -Dtest=FaultInjectionSoakTests \
 *     -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dsoak.operations=200000 -Dsoak.seed=42}</pre>
 *
 * A failing run prints its seed first; the same seed replays the same plan. Operations come with a criticality and
 * a tenant key, in requests of three, which the gate of "reports" orders by its scheduler (reserves, fair shares,
 * requests in progress first, displacement) while it borrows too; "batch" borrows a place of what
 * "orders" leaves unused, and the pool's gates as a whole are checked against the sum of their B. It runs once per queue discipline: under
 * {@link QueueDiscipline#CODEL} with a target delay of 1 ms and an interval of 5 ms, so that the queues of the
 * short CI run stand, shed and recover among the faults.
 */
@DisplayName("Fault-injection soak (real PostgreSQL, seeded)")
@Timeout(value = 30, unit = TimeUnit.MINUTES) // only against a hang: the run itself flags a stuck thread after two idle minutes
class FaultInjectionSoakTests {

    static {
        // Broken connections are the point here; HikariCP's warning with a stack trace for each would drown the log.
        System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari.pool.ProxyConnection", "error");
    }

    private static final long DEFAULT_SEED = 20_260_801L;
    private static final int DEFAULT_OPERATIONS = 2_000;
    private static final int DRIVERS = 12;
    private static final int POOL_SIZE = 10;
    private static final TransactionTimeouts LIMITS = TransactionTimeouts.of(Duration.ofSeconds(5), Duration.ofMillis(10), null);
    private static final Duration CODEL_TARGET_DELAY = Duration.ofMillis(1);
    private static final Duration CODEL_INTERVAL = Duration.ofMillis(5);
    /**
     * The rules of "reports", whose operations come as every criticality and four tenants: a quarter of its places
     * held back for critical work, half from sheddable work, and fair shares per tenant, all under the faults and the
     * planned resizes.
     */
    /** The places batch may borrow beyond its B from what orders leaves unused. */
    private static final int BATCH_BORROWS = 1;
    /** The places reports, a workload with rules, may borrow likewise. */
    private static final int REPORTS_BORROWS = 1;
    private static final AdmissionRules SHARES_AND_RESERVES = AdmissionRules.builder().criticalReserve(0.25)
            .sheddableReserve(0.5).fairShares(true).inProgressFirst(true).keySlots(8).build();

    @ParameterizedTest(name = "{0} queues")
    @EnumSource(QueueDiscipline.class)
    @DisplayName("mixed faults over three workloads on one pool: limits held, permits and connections back, no write lost or misreported")
    void soak(QueueDiscipline discipline) throws Exception {
        long seed = Long.getLong("soak.seed", DEFAULT_SEED);
        int operations = Integer.getInteger("soak.operations", DEFAULT_OPERATIONS);
        System.out.printf("soak: %s seed=%d operations=%d (repeat with -Dsoak.seed=%d -Dsoak.operations=%d)%n",
                discipline, seed, operations, seed, operations);
        TestDatabase database = PostgresFixture.freshSchema();
        database.execute("CREATE TABLE item (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE)",
                "CREATE TABLE hot_row (id int PRIMARY KEY, n bigint NOT NULL)",
                "INSERT INTO hot_row VALUES (1, 0)");
        Map<ExecutionOutcome, AtomicInteger> released = new ConcurrentHashMap<>();
        // The limit of "orders" moves B under the faults, from inside releases, racing the planned resizes.
        AdaptiveLimit adaptive = new AdaptiveLimit(AdaptiveLimitConfig.builder().minConcurrent(1).maxConcurrent(3)
                .build(), 3, change -> { });
        AtomicInteger limitResizes = new AtomicInteger();

        try (HikariDataSource pool = database.pool(POOL_SIZE)) {
            // Orders lends the places its B leaves unused, batch borrows one of them: lending under every fault too.
            LendingPool lending = new LendingPool("soak");
            Workload orders = jdbcWorkload("orders", pool, 3, 2, Duration.ofMillis(20), discipline, released,
                    adaptive, GateLending.of(lending, 0, true));
            adaptive.drive(concurrent -> {
                limitResizes.incrementAndGet();
                orders.limits().resizeConcurrent(orders.gate(), concurrent);
            });
            List<Workload> workloads = List.of(
                    orders,
                    templateWorkload("reports", pool, 2, 2, Duration.ofMillis(10), discipline, released,
                            SHARES_AND_RESERVES, GateLending.of(lending, REPORTS_BORROWS, false)),
                    jdbcWorkload("batch", pool, 2, 0, Duration.ZERO, discipline, released, GateListener.NONE,
                            GateLending.of(lending, BATCH_BORROWS, false)));
            FaultInjectionSoak soak = new FaultInjectionSoak(seed, operations, workloads, pool, database);
            long started = System.nanoTime();

            soak.run(DRIVERS);

            Duration took = Duration.ofNanos(System.nanoTime() - started);
            LedgerCheck ledger = LedgerCheck.against(soak.ledger().values(), storedKeys(database));
            printSummary(soak, workloads, ledger, released, took);

            assertThat(soak.stuck()).as("threads that did not end within the bound").isEmpty();
            assertThat(soak.violations()).as("invariant violations (seed " + seed + ")").isEmpty();
            assertThat(soak.ledger()).as("ledger lines").hasSize(operations);
            assertThat(ledger.lost()).as("writes reported committed but absent (seed " + seed + ")").isEmpty();
            assertThat(ledger.misreported()).as("writes misreported (seed " + seed + ")").isEmpty();
            assertThat(soak.samples()).as("limit samples taken").isPositive();
            assertThat(limitResizes).as("resizes by the adaptive limit of orders").hasPositiveValue();
            for (Workload workload : workloads) {
                assertAllPermitsBack(workload.gate());
                assertThat(workload.gate().queueLength()).as("parked in " + workload.name()).isZero();
            }
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("connections in use").isZero();
            assertThat(soak.results().keySet()).as("the rules of reports refused work under the faults")
                    .contains("rejected " + RejectionReason.SHED_BY_CRITICALITY,
                            "rejected " + RejectionReason.OVER_FAIR_SHARE, "rejected " + RejectionReason.BORROW_REFUSED);
            assertThat(lending.inUse()).as("places left taken on the pool's ledger").isZero();
            assertThat(soak.faults().keySet()).as("every kind of fault was planned")
                    .contains("resize", "pool exhausted outside the gate")
                    .containsAll(Set.of(Kind.values()).stream().map(kind -> "planned " + kind).toList());
        }
    }

    private static Workload jdbcWorkload(String name, HikariDataSource pool, int maxConcurrent, int maxQueued,
                                         Duration queueWait, QueueDiscipline discipline,
                                         Map<ExecutionOutcome, AtomicInteger> released, GateListener limit,
                                         GateLending lending) {
        AdmissionGate gate = gate(name, maxConcurrent, maxQueued, queueWait, discipline, released, limit,
                AdmissionRules.none(), lending);
        return workload(name, JdbcBulkheadConformanceTests.adapt(new JdbcBulkhead(gate, pool, LIMITS)), null,
                maxConcurrent, maxQueued, lending.borrow());
    }

    private static Workload templateWorkload(String name, HikariDataSource pool, int maxConcurrent, int maxQueued,
                                             Duration queueWait, QueueDiscipline discipline,
                                             Map<ExecutionOutcome, AtomicInteger> released, AdmissionRules rules,
                                             GateLending lending) {
        AdmissionGate gate = gate(name, maxConcurrent, maxQueued, queueWait, discipline, released, GateListener.NONE,
                rules, lending);
        BulkheadTemplate template = new BulkheadTemplate(gate, new DataSourceTransactionManager(pool),
                new DefaultTransactionDefinition(), LIMITS, pool);
        return workload(name, BulkheadTemplateConformanceTests.adapt(template, pool, false),
                BulkheadTemplateConformanceTests.adapt(template, pool, true), maxConcurrent, maxQueued,
                lending.borrow());
    }

    private static Workload workload(String name, Bulkhead bulkhead, Bulkhead markingRollbackOnly, int maxConcurrent,
                                     int maxQueued, int borrow) {
        return new Workload(name, bulkhead, markingRollbackOnly, new LimitHistory(maxConcurrent, maxQueued),
                new AtomicInteger(), new ConcurrentHashMap<>(), borrow);
    }

    /**
     * A gate whose listener tells the releasing thread (always the caller's) the outcome it recorded, and then
     * {@code limit}.
     */
    private static AdmissionGate gate(String name, int maxConcurrent, int maxQueued, Duration queueWait,
                                      QueueDiscipline discipline, Map<ExecutionOutcome, AtomicInteger> released,
                                      GateListener limit, AdmissionRules rules, GateLending lending) {
        GateListener outcomes = new GateListener() {
            @Override
            public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
                FaultInjectionSoak.LAST_OUTCOME.set(outcome);
                released.computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
            }
        };
        return new AdmissionGate(name, GateConfig.builder()
                .maxConcurrent(maxConcurrent).maxQueued(maxQueued).queueWait(queueWait).queueDiscipline(discipline)
                .queueTargetDelay(CODEL_TARGET_DELAY).queueInterval(CODEL_INTERVAL).admissionRules(rules)
                        .lending(lending).build(),
                GateListener.composite(List.of(outcomes, limit)));
    }

    private static Set<String> storedKeys(TestDatabase database) throws SQLException {
        Set<String> keys = new HashSet<>();
        try (Connection side = database.connect(); Statement statement = side.createStatement();
             ResultSet rows = statement.executeQuery("SELECT name FROM item")) {
            while (rows.next()) {
                keys.add(rows.getString(1));
            }
        }
        return keys;
    }

    /**
     * The ledger against the table. What the gate recorded decides what must be stored: COMMITTED present;
     * ROLLED_BACK, FAILED or never admitted absent; UNKNOWN either, counted. What the caller was told must agree
     * with it: a value only for a commit (or a rollback the caller asked for), {@code CommitOutcomeUnknownException}
     * exactly for UNKNOWN, a rejection only when nothing was admitted.
     */
    record LedgerCheck(List<String> lost, List<String> misreported, int unknownPresent, int unknownAbsent,
                       int committed, int committedThoughTheCallerSawAFailure) {

        static LedgerCheck against(Iterable<Write> ledger, Set<String> stored) {
            List<String> lost = new ArrayList<>();
            List<String> misreported = new ArrayList<>();
            Set<String> written = new HashSet<>();
            int unknownPresent = 0;
            int unknownAbsent = 0;
            int committed = 0;
            int failedAfterCommit = 0;
            for (Write write : ledger) {
                written.add(write.key());
                boolean present = stored.contains(write.key());
                ExecutionOutcome outcome = write.outcome();
                if (outcome == ExecutionOutcome.COMMITTED) {
                    committed++;
                    if (!present) {
                        lost.add(write.toString());
                    }
                } else if (outcome == ExecutionOutcome.UNKNOWN) {
                    if (present) {
                        unknownPresent++;
                    } else {
                        unknownAbsent++;
                    }
                } else if (present) {
                    misreported.add("stored although " + (outcome == null ? "never admitted" : outcome) + ": " + write);
                }
                if (!agrees(write)) {
                    if (outcome == ExecutionOutcome.COMMITTED && write.reported() == Reported.FAILED) {
                        // The contract allows it (a failing close after the commit), but it is worth counting.
                        failedAfterCommit++;
                    } else {
                        misreported.add("caller told " + write.reported() + ": " + write);
                    }
                }
            }
            for (String key : stored) {
                if (!written.contains(key)) {
                    misreported.add("stored but in no ledger line: " + key);
                }
            }
            return new LedgerCheck(lost, misreported, unknownPresent, unknownAbsent, committed, failedAfterCommit);
        }

        private static boolean agrees(Write write) {
            ExecutionOutcome outcome = write.outcome();
            return switch (write.reported()) {
                case RETURNED -> outcome == (write.kind() == Kind.ROLLBACK_ONLY
                        ? ExecutionOutcome.ROLLED_BACK : ExecutionOutcome.COMMITTED);
                case OUTCOME_UNKNOWN -> outcome == ExecutionOutcome.UNKNOWN;
                case REJECTED, NOT_STARTED -> outcome == null;
                case FAILED -> outcome == ExecutionOutcome.ROLLED_BACK || outcome == ExecutionOutcome.FAILED;
            };
        }
    }

    private static void printSummary(FaultInjectionSoak soak, List<Workload> workloads, LedgerCheck ledger,
                                     Map<ExecutionOutcome, AtomicInteger> released, Duration took) {
        StringBuilder out = new StringBuilder();
        out.append(String.format("soak summary: seed=%d operations=%d duration=%.1fs samples=%d%n",
                soak.seed(), soak.operations(), took.toMillis() / 1000.0, soak.samples()));
        soak.faults().forEach((what, count) -> out.append(String.format("  fault   %-40s %d%n", what, count)));
        soak.results().forEach((what, count) -> out.append(String.format("  result  %-40s %d%n", what, count)));
        new TreeMap<>(released).forEach((outcome, count) ->
                out.append(String.format("  outcome %-40s %d%n", outcome, count.get())));
        for (Workload workload : workloads) {
            out.append(String.format("  gate    %-40s %d resizes, %d shed, now %s%n", workload.name(),
                    workload.limits().resizes(), workload.gate().shedCount(), workload.gate().config()));
        }
        out.append(String.format("  ledger  committed=%d unknown(present)=%d unknown(absent)=%d lost=%d misreported=%d"
                        + " committed-but-caller-saw-failure=%d%n", ledger.committed(), ledger.unknownPresent(),
                ledger.unknownAbsent(), ledger.lost().size(), ledger.misreported().size(),
                ledger.committedThoughTheCallerSawAFailure()));
        out.append(String.format("  checks  violations=%d stuck-threads=%d%n", soak.violations().size(),
                soak.stuck().size()));
        soak.violations().stream().limit(20).forEach(v -> out.append("  VIOLATION ").append(v).append('\n'));
        Set<String> problems = new HashSet<>(ledger.lost().stream().limit(10).toList());
        problems.addAll(ledger.misreported().stream().limit(10).toList());
        problems.forEach(p -> out.append("  LEDGER ").append(p).append('\n'));
        System.out.print(out);
    }
}
