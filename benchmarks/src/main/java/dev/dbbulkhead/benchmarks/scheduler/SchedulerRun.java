package dev.dbbulkhead.benchmarks.scheduler;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.benchmarks.lending.BorrowersScenario;
import dev.dbbulkhead.benchmarks.lending.LendingScenario;
import dev.dbbulkhead.benchmarks.load.Arrivals;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.load.StartingAt;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.Budget;
import dev.dbbulkhead.benchmarks.overload.GuardedTransactions;
import dev.dbbulkhead.benchmarks.overload.PlainTransaction;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.gate.RequestCommits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Who gets the next place, measured against its targets in one run on real PostgreSQL: the cases below, each a few
 * seconds of open-loop load on a fresh pool, using the gate's public API only (so the same harness measures whatever
 * gate the build has). Loads are set from capacities measured first: B callers back to back on a pool of B.
 *
 * <ol>
 *   <li><b>noisy</b>: 10 tenants, one offering 10 × the nine others together, 3 × the capacity in all;</li>
 *   <li><b>two tenants</b>: one noisy (3 × what B serves), one quiet (a few calls a second), operations of 100 ms,
 *       for B + Q = 32 and for the multi-tenant how-to's B = 8, Q = 16;</li>
 *   <li><b>room</b>: 10 equal tenants at 1.1 × the capacity, with fair shares and without, two pairs of the keys
 *       sharing a slot of the 256-slot hashed table fair shares once counted keys in ({@link HashedKeySlots});</li>
 *   <li><b>keyless</b>: four keyed tenants and three clients that send no key;</li>
 *   <li><b>criticality</b>: 3 × overload, a third each critical, default and sheddable, the sheddable work arriving
 *       first and filling the queue;</li>
 *   <li><b>requests</b>: requests of three operations in a row under 3 × overload, without rules and with
 *       {@code inProgressFirst(true)};</li>
 *   <li><b>lending</b>: {@link LendingScenario} with fair shares on the borrowing workload;</li>
 *   <li><b>borrowers</b>: {@link BorrowersScenario}, two borrowers that both queue beside an idle lender.</li>
 * </ol>
 */
public final class SchedulerRun {

    /** The how-to's two-tenant workloads: B + Q = 32 as first written, and B = 8, Q = 16 as it stands. */
    static final Budget TWO_TENANTS_32 = new Budget(16, 16, Duration.ofMillis(50));
    static final Budget TWO_TENANTS_HOW_TO = new Budget(8, 16, Duration.ofMillis(50));
    /** The tenants scenario's workload. */
    static final Budget TENANTS = new Budget(10, 10, Duration.ofMillis(50));
    /** The overload and criticality scenarios' workload. */
    static final Budget OVERLOAD = new Budget(10, 20, Duration.ofMillis(50));
    static final int TENANT_COUNT = 10;
    static final double NOISY_OVER_OTHERS = 10;
    static final double OVERLOAD_FACTOR = 3;
    static final double ROOM_LOAD = 1.1;
    static final int COLLIDING_PAIRS = 2;
    static final int KEYED_BESIDE_KEYLESS = 4;
    static final int KEYLESS_CLIENTS = 3;
    static final double KEYLESS_LOAD_EACH = 0.5;
    /** The noisy tenant of the two offers this many times B / {@link #TWO_TENANTS_HOLD}. */
    static final double TWO_TENANTS_NOISY = 3;
    /** The quiet tenant of the two: a few requests a second, as one user's. */
    static final double TWO_TENANTS_QUIET_PER_SECOND = 5;
    /**
     * The two tenants' operations, as a web request's would, take longer than the how-to's queue wait: this on average,
     * from half of it to one and a half times it.
     */
    static final Duration TWO_TENANTS_HOLD = Duration.ofMillis(100);
    static final int OPERATIONS_PER_REQUEST = 3;
    /** The request's own work between two of its operations. */
    static final Duration BETWEEN_OPERATIONS = Duration.ofMillis(10);
    /** Critical and default work begin this long after the sheddable burst that fills the queue. */
    static final Duration SHEDDABLE_HEAD_START = Duration.ofMillis(250);
    static final AdmissionRules FAIR_SHARES = AdmissionRules.builder().fairShares(true).build();
    static final AdmissionRules LARGE_RESERVE = AdmissionRules.builder().criticalReserve(0.67).sheddableReserve(0.8)
            .build();
    static final AdmissionRules SMALL_RESERVE = AdmissionRules.builder().criticalReserve(0.1).build();
    static final AdmissionRules IN_PROGRESS_FIRST = AdmissionRules.builder().inProgressFirst(true).build();

    private SchedulerRun() {
    }

    /** How long each part runs. */
    record Timing(Duration window, Duration twoTenantsWindow, Duration capacityWindow, Duration poolTimeout,
                  LendingScenario.Timing lending) {

        /** About three minutes in all. */
        static final Timing FULL = new Timing(Duration.ofSeconds(5), Duration.ofSeconds(8), Duration.ofSeconds(3),
                Duration.ofSeconds(2), new LendingScenario.Timing(Duration.ofSeconds(2), Duration.ofSeconds(5),
                        Duration.ofSeconds(8), Duration.ofSeconds(2)));
        /** For trying the harness; the numbers mean nothing. */
        static final Timing QUICK = new Timing(Duration.ofMillis(400), Duration.ofMillis(400), Duration.ofMillis(400),
                Duration.ofMillis(250), LendingScenario.Timing.QUICK);
    }

    /** Requests of three operations: how many completed, and the operations refused and committed. */
    record RequestsResult(GateCase.Result run, int requests, int complete, int operationsCommitted,
                          int operationsRefused) {

        double completeShare() {
            return requests == 0 ? Double.NaN : (double) complete / requests;
        }
    }

    /**
     * The lending scenario with rules on the borrower, or why it did not run.
     *
     * @param refusedBecause the build's refusal of lending with rules; null when it ran
     */
    record LendingResult(LendingScenario.Result detail, String refusedBecause) {
    }

    /**
     * @param closedLoop commits/s of 10 callers back to back on a pool of 10, no gate
     * @param capacity   commits/s a gate of B = 10 serves under overload ({@link #served}): what the cases are sized by
     */
    public record Result(Timing timing, double closedLoop, double capacity,
                         GateCase.Result noisy, GateCase.Result noisyNoRules, GateCase.Result twoTenants32,
                         GateCase.Result twoTenantsHowTo, List<String> roomKeys, GateCase.Result roomShares,
                         GateCase.Result roomNoRules, GateCase.Result keyless, GateCase.Result criticalityLarge,
                         GateCase.Result criticalitySmall, RequestsResult requestsFifo,
                         RequestsResult requestsInProgressFirst, LendingResult lendingWithRules,
                         LendingScenario.Result lendingWithoutRules, BorrowersScenario.Result borrowers,
                         Instant began, Instant ended) {

        /** Every target with its verdict. */
        public List<Target> targets() {
            return SchedulerTargets.judge(this);
        }
    }

    public static Result run(boolean quick) throws Exception {
        Timing timing = quick ? Timing.QUICK : Timing.FULL;
        Instant began = Instant.now();
        BenchDatabase database = BenchDatabase.create();
        closedLoop(database, 10, timing);
        double closedLoop = closedLoop(database, 10, timing);
        double capacity = served(database, closedLoop, timing);
        // Not counted: compiles the gate's, the driver's and the harness's paths before the first counted case.
        noisy(database, "warm-up", FAIR_SHARES, capacity, timing);
        GateCase.Result noisy = noisy(database, "noisy", FAIR_SHARES, capacity, timing);
        GateCase.Result noisyNoRules = noisy(database, "noisy-no-rules", AdmissionRules.none(), capacity, timing);
        GateCase.Result twoTenants32 = twoTenants(database, "two-tenants-32", TWO_TENANTS_32, timing);
        GateCase.Result twoTenantsHowTo = twoTenants(database, "two-tenants-how-to", TWO_TENANTS_HOW_TO, timing);
        List<String> roomKeys = HashedKeySlots.keys("tenant-", TENANT_COUNT, COLLIDING_PAIRS);
        GateCase.Result roomShares = room(database, "room-shares", FAIR_SHARES, roomKeys, capacity, timing);
        GateCase.Result roomNoRules = room(database, "room-no-rules", AdmissionRules.none(), roomKeys, capacity,
                timing);
        GateCase.Result keyless = keyless(database, capacity, timing);
        GateCase.Result criticalityLarge = criticality(database, "criticality-large-reserve", LARGE_RESERVE,
                capacity, timing);
        GateCase.Result criticalitySmall = criticality(database, "criticality-small-reserve", SMALL_RESERVE,
                capacity, timing);
        RequestsResult fifo = requests(database, "requests-fifo", AdmissionRules.none(), capacity, timing);
        RequestsResult inProgressFirst = requests(database, "requests-in-progress-first", IN_PROGRESS_FIRST,
                capacity, timing);
        LendingResult lendingWithRules = lendingWithRules(timing);
        LendingScenario.Result lendingWithoutRules = LendingScenario.run(timing.lending());
        BorrowersScenario.Result borrowers = BorrowersScenario.run(timing.lending().warmUp(), timing.window(),
                timing.lending().drain());
        return new Result(timing, closedLoop, capacity, noisy, noisyNoRules, twoTenants32,
                twoTenantsHowTo, roomKeys, roomShares, roomNoRules, keyless, criticalityLarge, criticalitySmall, fifo,
                inProgressFirst, lendingWithRules, lendingWithoutRules, borrowers, began, Instant.now());
    }

    static String noisyTenant() {
        return "tenant-0";
    }

    /** Ten tenants: {@code tenant-0} offers 10 × the nine others together, all of them 3 × the capacity. */
    private static GateCase.Result noisy(BenchDatabase database, String name, AdmissionRules rules, double capacity,
                                         Timing timing) throws Exception {
        double quietTogether = OVERLOAD_FACTOR * capacity / (NOISY_OVER_OTHERS + 1);
        List<GateCase.Flow> flows = new ArrayList<>();
        flows.add(GateCase.Flow.keyed(noisyTenant(), NOISY_OVER_OTHERS * quietTogether));
        for (int t = 1; t < TENANT_COUNT; t++) {
            flows.add(GateCase.Flow.keyed("tenant-" + t, quietTogether / (TENANT_COUNT - 1)));
        }
        return GateCase.run(database, name, TENANTS.maxConcurrent(), TENANTS, rules, GateCase.flows(flows),
                timing.window(), timing.poolTimeout());
    }

    /**
     * The noisy tenant at 3 × what B serves of {@link #TWO_TENANTS_HOLD} (the sleep alone), the quiet one at
     * {@link #TWO_TENANTS_QUIET_PER_SECOND} calls/s.
     */
    private static GateCase.Result twoTenants(BenchDatabase database, String name, Budget budget, Timing timing)
            throws Exception {
        double capacity = budget.maxConcurrent() / (TWO_TENANTS_HOLD.toNanos() / 1e9);
        List<GateCase.Flow> flows = List.of(GateCase.Flow.keyed("noisy", TWO_TENANTS_NOISY * capacity),
                GateCase.Flow.keyed("quiet", TWO_TENANTS_QUIET_PER_SECOND));
        return GateCase.run(database, name, budget.maxConcurrent(), budget, FAIR_SHARES,
                GateCase.flowsOfVaryingHold(flows, TWO_TENANTS_HOLD), timing.twoTenantsWindow(), timing.poolTimeout());
    }

    /** Ten equal tenants at 1.1 × the capacity. */
    private static GateCase.Result room(BenchDatabase database, String name, AdmissionRules rules, List<String> keys,
                                        double capacity, Timing timing) throws Exception {
        List<GateCase.Flow> flows = keys.stream()
                .map(key -> GateCase.Flow.keyed(key, ROOM_LOAD * capacity / keys.size())).toList();
        return GateCase.run(database, name, TENANTS.maxConcurrent(), TENANTS, rules, GateCase.flows(flows),
                timing.window(), timing.poolTimeout());
    }

    /** Four keyed tenants and three clients without a key, each offering half the capacity. */
    private static GateCase.Result keyless(BenchDatabase database, double capacity, Timing timing) throws Exception {
        List<GateCase.Flow> flows = new ArrayList<>();
        for (int t = 0; t < KEYED_BESIDE_KEYLESS; t++) {
            flows.add(GateCase.Flow.keyed("tenant-" + t, KEYLESS_LOAD_EACH * capacity));
        }
        for (int c = 0; c < KEYLESS_CLIENTS; c++) {
            flows.add(new GateCase.Flow("keyless-" + c, Arrivals.steady(KEYLESS_LOAD_EACH * capacity),
                    Criticality.DEFAULT, null));
        }
        return GateCase.run(database, "keyless", TENANTS.maxConcurrent(), TENANTS, FAIR_SHARES, GateCase.flows(flows),
                timing.window(), timing.poolTimeout());
    }

    /**
     * A third each critical, default and sheddable, each offering the capacity; the sheddable work first, B + Q of it
     * at once, the rest {@link #SHEDDABLE_HEAD_START} later.
     */
    private static GateCase.Result criticality(BenchDatabase database, String name, AdmissionRules rules,
                                               double capacity, Timing timing) throws Exception {
        double perClass = OVERLOAD_FACTOR * capacity / Criticality.values().length;
        int fill = OVERLOAD.maxConcurrent() + OVERLOAD.maxQueued();
        List<GateCase.Flow> flows = List.of(
                new GateCase.Flow(Criticality.SHEDDABLE.name(), withBurst(fill, Arrivals.steady(perClass)),
                        Criticality.SHEDDABLE, null),
                new GateCase.Flow(Criticality.DEFAULT.name(), new StartingAt(SHEDDABLE_HEAD_START,
                        Arrivals.steady(perClass)), Criticality.DEFAULT, null),
                new GateCase.Flow(Criticality.CRITICAL.name(), new StartingAt(SHEDDABLE_HEAD_START,
                        Arrivals.steady(perClass)), Criticality.CRITICAL, null));
        return GateCase.run(database, name, OVERLOAD.maxConcurrent(), OVERLOAD, rules, GateCase.flows(flows),
                timing.window(), timing.poolTimeout());
    }

    /**
     * Requests of three gated transactions on one thread, inside {@link RequestCommits#track()}, with the request's
     * own work between them ({@link #BETWEEN_OPERATIONS}: rendering, a call elsewhere), offered so that their
     * operations are 3 × the capacity; a request stops at its first refused operation. Without that work between, the
     * next operation of a request arrives the instant the previous one leaves and takes the place it freed: a request
     * would never compete with newcomers, as it does in a real application.
     */
    private static RequestsResult requests(BenchDatabase database, String name, AdmissionRules rules,
                                           double capacity, Timing timing) throws Exception {
        double perSecond = OVERLOAD_FACTOR * capacity / OPERATIONS_PER_REQUEST;
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        GateCase.Streams streams = (gated, occupancy) -> {
            GuardedTransactions operations = gated.of(OperationClass.of(Criticality.DEFAULT));
            return List.of(new LoadStream("requests", Arrivals.steady(perSecond), () -> {
                try (RequestCommits.Scope request = RequestCommits.track()) {
                    for (int operation = 0; operation < OPERATIONS_PER_REQUEST; operation++) {
                        if (operation > 0) {
                            LockSupport.parkNanos(BETWEEN_OPERATIONS.toNanos());
                        }
                        try {
                            operations.transaction(connection -> occupancy.executing(
                                    () -> BenchDatabase.sleepAndUpdate(connection, GateCase.HOLD)));
                        } catch (BulkheadRejectedException refusal) {
                            refused.incrementAndGet();
                            throw refusal;
                        }
                        committed.incrementAndGet();
                    }
                }
            }));
        };
        GateCase.Result run = GateCase.run(database, name, OVERLOAD.maxConcurrent(), OVERLOAD, rules, streams,
                timing.window(), timing.poolTimeout());
        GateCase.StreamResult requests = run.stream("requests");
        return new RequestsResult(run, requests.offered(), requests.committed(), committed.get(), refused.get());
    }

    private static LendingResult lendingWithRules(Timing timing) throws Exception {
        try {
            return new LendingResult(LendingScenario.run(timing.lending(), FAIR_SHARES), null);
        } catch (IllegalArgumentException refused) {
            return new LendingResult(null, refused.getMessage());
        }
    }

    /**
     * What the cases' gate serves when it is never idle: commits per second of a gate of B = 10 without rules, on a
     * pool of 10, offered 3 × {@code closedLoop}. The capacity the cases are sized by: unlike the closed loop it
     * counts the gate's hand-over of a freed place to a waiter, which every overloaded case pays, so that "the
     * capacity" is what the workload can serve rather than a rate no gated workload reaches.
     */
    static double served(BenchDatabase database, double closedLoop, Timing timing) throws Exception {
        GateCase.Result saturated = GateCase.run(database, "capacity", OVERLOAD.maxConcurrent(), OVERLOAD,
                AdmissionRules.none(), GateCase.flows(List.of(GateCase.Flow.keyed("capacity",
                        OVERLOAD_FACTOR * closedLoop))), timing.capacityWindow(), timing.poolTimeout());
        return saturated.goodput();
    }

    /** Commits per second of {@code size} callers back to back on a pool of {@code size}, no gate. */
    static double closedLoop(BenchDatabase database, int size, Timing timing) throws Exception {
        try (HikariDataSource pool = database.pool(size, timing.poolTimeout(), "scheduler-closed-loop-" + size)) {
            long end = System.nanoTime() + timing.capacityWindow().toNanos();
            AtomicLong committed = new AtomicLong();
            AtomicInteger failures = new AtomicInteger();
            List<Thread> callers = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                callers.add(Thread.ofVirtual().start(() -> {
                    try {
                        while (System.nanoTime() - end < 0) {
                            PlainTransaction.run(pool, connection ->
                                    BenchDatabase.sleepAndUpdate(connection, GateCase.HOLD));
                            if (System.nanoTime() - end < 0) {
                                committed.incrementAndGet();
                            }
                        }
                    } catch (Exception failure) {
                        failures.incrementAndGet();
                    }
                }));
            }
            for (Thread caller : callers) {
                caller.join();
            }
            if (failures.get() > 0) {
                throw new IllegalStateException(failures.get() + " closed-loop callers failed");
            }
            RunConditions.settleHeap();
            return committed.get() / (timing.capacityWindow().toNanos() / 1e9);
        }
    }

    /** {@code after}, with {@code burst} more calls at once at the start. */
    static Arrivals withBurst(int burst, Arrivals after) {
        return new Arrivals() {
            @Override
            public long dueBy(long elapsedNanos) {
                return burst + after.dueBy(elapsedNanos);
            }

            @Override
            public long within(Duration window) {
                return burst + after.within(window);
            }

            @Override
            public double perSecond() {
                return after.perSecond();
            }
        };
    }
}
