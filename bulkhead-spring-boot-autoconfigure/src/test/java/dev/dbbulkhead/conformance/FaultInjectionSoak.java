package dev.dbbulkhead.conformance;

import static dev.dbbulkhead.conformance.BulkheadConformanceTests.endBackendAndWaitUntilGone;
import static dev.dbbulkhead.conformance.BulkheadConformanceTests.insert;
import static dev.dbbulkhead.conformance.BulkheadConformanceTests.queryInt;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.CommitOutcomeUnknownException;
import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.LimitHistory;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.gate.RequestCommits;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A seeded, randomised mix of operations and faults over several workloads sharing one pool, with the limits
 * sampled while it runs and a ledger of every write. The plan (which operation does what, on which workload, when
 * the pool is taken from outside the gate and when a gate is resized) follows from the seed alone; how the threads
 * meet differs from run to run, and every outcome is checked against the contract, never against a count.
 */
final class FaultInjectionSoak {

    /** What an operation does, and how often the plan picks it (weights out of their sum). */
    enum Kind {
        SUCCESS(40),
        SQL_EXCEPTION(6),
        RUNTIME_EXCEPTION(5),
        ERROR(4),
        ROLLBACK_ONLY(5),
        STATEMENT_TIMEOUT(4),
        LOCK_TIMEOUT(6),
        TERMINATE_MID_WORK(2),
        TERMINATE_BEFORE_COMMIT(2),
        INTERRUPT_BEFORE_ENTRY(3),
        INTERRUPT_WHILE_RUNNING(3),
        INTERRUPT_FROM_ANOTHER_THREAD(3),
        CALLER_GIVES_UP(6);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }
    }

    /** What the calling thread was told; NOT_STARTED when its caller gave up before the operation began. */
    enum Reported { RETURNED, OUTCOME_UNKNOWN, REJECTED, FAILED, NOT_STARTED }

    /**
     * One workload under test: its gate, its two faces, the ghost of its resizes, who is inside, and the most places
     * it may borrow beyond its B from the other workloads of the pool (0 for none).
     */
    record Workload(String name, Bulkhead bulkhead, Bulkhead markingRollbackOnly, LimitHistory limits,
                    AtomicInteger inWork, Map<Integer, Integer> liveCallers, int borrow) {

        AdmissionGate gate() {
            return bulkhead.gate();
        }
    }

    /** One ledger line: what operation {@code sequence} did, what its caller was told and what its gate recorded. */
    record Write(int sequence, Kind kind, String workload, Reported reported, ExecutionOutcome outcome) {

        String key() {
            return key(sequence);
        }

        static String key(int sequence) {
            return "s-" + sequence;
        }
    }

    /** The outcome the gate recorded for the operation this thread ran last; set by the gate's listener. */
    static final ThreadLocal<ExecutionOutcome> LAST_OUTCOME = new ThreadLocal<>();

    private static final Duration JOIN_LIMIT = Duration.ofMinutes(2);
    private static final int HOG_EVERY = 997;
    private static final int RESIZE_EVERY = 101;
    private static final int MAX_CONCURRENT_PER_GATE = 3;
    private static final int MAX_QUEUED_PER_GATE = 3;
    private static final int TENANTS = 4;
    private static final long CLASS_PLAN = 0x5EEDC1A55L;

    private final long seed;
    private final int operations;
    private final List<Workload> workloads;
    private final HikariDataSource pool;
    private final TestDatabase database;
    private final Kind[] kinds;
    private final int[] workloadOf;
    private final int[][] resizeTo;
    /** The class each operation is admitted as: its criticality and tenant key; none for about a third. */
    private final OperationClass[] classes;

    private final AtomicInteger nextOperation = new AtomicInteger();
    private final AtomicInteger finishedOperations = new AtomicInteger();
    private final AtomicLong poolTimeouts = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicBoolean hogging = new AtomicBoolean();
    private final Map<String, LongAdder> faults = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> results = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final Map<Integer, Write> ledger = new ConcurrentHashMap<>();
    private final List<Thread> stuck = new CopyOnWriteArrayList<>();
    private final LongAdder samples = new LongAdder();
    private final ExecutorService givenUpOn = Executors.newVirtualThreadPerTaskExecutor();
    private final ExecutorService resizer = Executors.newSingleThreadExecutor(Thread.ofVirtual().factory());

    FaultInjectionSoak(long seed, int operations, List<Workload> workloads, HikariDataSource pool,
                       TestDatabase database) {
        this.seed = seed;
        this.operations = operations;
        this.workloads = workloads;
        this.pool = pool;
        this.database = database;
        Random plan = new Random(seed);
        int totalWeight = Arrays.stream(Kind.values()).mapToInt(kind -> kind.weight).sum();
        kinds = new Kind[operations];
        workloadOf = new int[operations];
        resizeTo = new int[operations / RESIZE_EVERY + 1][];
        for (int i = 0; i < operations; i++) {
            kinds[i] = pick(plan.nextInt(totalWeight));
            workloadOf[i] = kinds[i] == Kind.ROLLBACK_ONLY ? rollbackCapableWorkload() : plan.nextInt(workloads.size());
            tally(faults, "planned " + kinds[i]);
        }
        for (int r = 0; r < resizeTo.length; r++) {
            resizeTo[r] = new int[] {plan.nextInt(workloads.size()), 1 + plan.nextInt(MAX_CONCURRENT_PER_GATE),
                    plan.nextInt(MAX_QUEUED_PER_GATE + 1)};
        }
        // Drawn from a plan of their own, so that a seed's faults and workloads are what they were before classes.
        Random classPlan = new Random(seed ^ CLASS_PLAN);
        classes = new OperationClass[operations];
        Criticality[] criticalities = Criticality.values();
        for (int i = 0; i < operations; i++) {
            int roll = classPlan.nextInt(3 * TENANTS);
            Criticality criticality = criticalities[classPlan.nextInt(criticalities.length)];
            classes[i] = roll < TENANTS ? OperationClass.UNCLASSIFIED
                    : roll < 2 * TENANTS ? OperationClass.of(criticality)
                    : OperationClass.of(criticality, "tenant-" + (roll % TENANTS));
        }
    }

    private static Kind pick(int roll) {
        for (Kind kind : Kind.values()) {
            roll -= kind.weight;
            if (roll < 0) {
                return kind;
            }
        }
        throw new AssertionError(roll);
    }

    private int rollbackCapableWorkload() {
        for (int w = 0; w < workloads.size(); w++) {
            if (workloads.get(w).markingRollbackOnly() != null) {
                return w;
            }
        }
        throw new IllegalStateException("no workload can mark a transaction rollback-only");
    }

    /** Runs the plan on {@code drivers} virtual threads; returns when every thread it started has ended. */
    void run(int drivers) throws Exception {
        Thread sampler = Thread.ofPlatform().daemon().name("soak-sampler").start(this::sampleLimits);
        Thread locker = Thread.ofVirtual().name("soak-row-locker").start(this::holdTheHotRowNowAndThen);
        List<Thread> driverThreads = new ArrayList<>();
        for (int d = 0; d < drivers; d++) {
            driverThreads.add(Thread.ofVirtual().name("soak-driver-" + d).start(this::drive));
        }
        for (Thread driver : driverThreads) {
            joinWithin(driver);
        }
        givenUpOn.shutdown();
        resizer.shutdown();
        if (!givenUpOn.awaitTermination(JOIN_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
            violations.add("operations whose callers gave up did not end within " + JOIN_LIMIT);
        }
        if (!resizer.awaitTermination(JOIN_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
            violations.add("a resize did not end within " + JOIN_LIMIT);
        }
        running.set(false);
        joinWithin(locker);
        joinWithin(sampler);
    }

    /**
     * Waits for {@code thread} as long as operations keep finishing; a thread still alive after {@link #JOIN_LIMIT}
     * in which no operation finished is stuck. (A long run lasts far longer than the limit.)
     */
    private void joinWithin(Thread thread) throws InterruptedException {
        int finishedBefore;
        do {
            finishedBefore = finishedOperations.get();
            if (thread.join(JOIN_LIMIT)) {
                return;
            }
        } while (finishedOperations.get() != finishedBefore);
        stuck.add(thread);
    }

    /**
     * Runs operations until none is left, as requests of {@value #OPERATIONS_PER_REQUEST} operations each: a gate
     * whose rules serve requests in progress first sees the later operations of each as such.
     */
    private void drive() {
        RequestCommits.Scope request = RequestCommits.track();
        int inRequest = 0;
        try {
            for (int i = nextOperation.getAndIncrement(); i < operations; i = nextOperation.getAndIncrement()) {
                if (inRequest++ == OPERATIONS_PER_REQUEST) {
                    request.close();
                    request = RequestCommits.track();
                    inRequest = 1;
                }
                startBackgroundFaults(i);
                try {
                    runOperation(i);
                } catch (Throwable unexpected) {
                    violations.add("operation " + i + " (" + kinds[i] + ") broke the driver: " + unexpected);
                } finally {
                    Thread.interrupted();
                    reportProgress(finishedOperations.incrementAndGet());
                }
            }
        } finally {
            request.close();
        }
    }

    /** One line per tenth of a long run, so that its progress can be followed. */
    private void reportProgress(int finished) {
        if (operations >= 100_000 && finished % (operations / 10) == 0) {
            System.out.printf("soak: %d of %d operations, %d violations so far%n", finished, operations, violations.size());
        }
    }

    private void startBackgroundFaults(int sequence) {
        if (sequence % RESIZE_EVERY == RESIZE_EVERY - 1) {
            int[] resize = resizeTo[sequence / RESIZE_EVERY];
            Workload workload = workloads.get(resize[0]);
            tally(faults, "resize");
            resizer.execute(() -> workload.limits().resize(workload.gate(), resize[1], resize[2]));
        }
        if (sequence % HOG_EVERY == HOG_EVERY / 2 && hogging.compareAndSet(false, true)) {
            tally(faults, "pool exhausted outside the gate");
            Thread.ofVirtual().name("soak-pool-hog").start(this::exhaustThePoolFromOutside);
        }
    }

    private void runOperation(int sequence) throws Exception {
        Kind kind = kinds[sequence];
        switch (kind) {
            case INTERRUPT_FROM_ANOTHER_THREAD -> {
                // Lands wherever the caller happens to be: before entry, in the queue, in the work, in cleanup.
                Thread caller = Thread.ofVirtual().start(() -> call(sequence));
                caller.interrupt();
                joinWithin(caller);
            }
            case CALLER_GIVES_UP -> {
                Future<?> operation = givenUpOn.submit(() -> call(sequence));
                try {
                    operation.get(1, TimeUnit.MILLISECONDS);
                } catch (TimeoutException impatient) {
                    // The operation goes on with its permits and its own thread records what it was told, unless
                    // the cancel came before it began: then this line stays, and nothing may be stored.
                    ledger.putIfAbsent(sequence, new Write(sequence, kinds[sequence],
                            workloads.get(workloadOf[sequence]).name(), Reported.NOT_STARTED, null));
                    operation.cancel(true);
                } catch (ExecutionException failed) {
                    violations.add("operation " + sequence + " escaped its bookkeeping: " + failed.getCause());
                }
            }
            case INTERRUPT_BEFORE_ENTRY -> {
                Thread.currentThread().interrupt();
                call(sequence);
            }
            default -> call(sequence);
        }
    }

    /**
     * Runs operation {@code sequence} on this thread and writes its ledger line. An attempt the gate turned away
     * for want of room is counted and tried again after a short random pause, so that every kind of work really
     * runs however the threads meet; an interrupted caller is not retried.
     */
    private static final int OPERATIONS_PER_REQUEST = 3;

    private void call(int sequence) {
        while (!attempt(sequence)) {
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(500_000, 3_000_000));
        }
    }

    /** @return false when the gate had no room for the attempt (and nothing was recorded in the ledger) */
    private boolean attempt(int sequence) {
        Kind kind = kinds[sequence];
        Workload workload = workloads.get(workloadOf[sequence]);
        Bulkhead bulkhead = kind == Kind.ROLLBACK_ONLY ? workload.markingRollbackOnly() : workload.bulkhead();
        workload.liveCallers().put(sequence, workload.limits().currentGeneration());
        LAST_OUTCOME.remove();
        OperationClass admittedAs = classes[sequence];
        Reported reported;
        try (OperationClass.Scope classified = admittedAs.bind()) {
            bulkhead.transaction(connection -> work(connection, kind, sequence, workload));
            reported = Reported.RETURNED;
            tally(results, kind == Kind.ROLLBACK_ONLY ? "rolled back (rollback-only)" : "committed");
        } catch (CommitOutcomeUnknownException unknown) {
            reported = Reported.OUTCOME_UNKNOWN;
            tally(results, "commit outcome unknown");
        } catch (BulkheadRejectedException rejected) {
            reported = Reported.REJECTED;
            tally(results, "rejected " + rejected.reason());
            if (rejected.reason() == RejectionReason.SHED_BY_CRITICALITY
                    && admittedAs.criticality() == Criticality.CRITICAL) {
                violations.add("operation " + sequence + ": critical work shed for criticality");
            }
            if (rejected.reason() != RejectionReason.INTERRUPTED && !Thread.currentThread().isInterrupted()) {
                return false;
            }
            if (kind == Kind.INTERRUPT_BEFORE_ENTRY && rejected.reason() == RejectionReason.INTERRUPTED
                    && !Thread.currentThread().isInterrupted()) {
                violations.add("operation " + sequence + ": interrupt flag lost on an INTERRUPTED rejection");
            }
        } catch (BulkheadMisuseException misuse) {
            reported = Reported.FAILED;
            violations.add("operation " + sequence + ": misuse reported where there was none: " + misuse);
        } catch (Throwable failure) {
            reported = Reported.FAILED;
            tally(results, classify(failure));
        } finally {
            workload.liveCallers().remove(sequence);
        }
        ExecutionOutcome outcome = LAST_OUTCOME.get();
        if (kind == Kind.INTERRUPT_BEFORE_ENTRY && outcome != null) {
            violations.add("operation " + sequence + ": a caller interrupted before entry was admitted");
        }
        ledger.put(sequence, new Write(sequence, kind, workload.name(), reported, outcome));
        return true;
    }

    private Object work(Connection connection, Kind kind, int sequence, Workload workload) throws SQLException {
        workload.inWork().incrementAndGet();
        try {
            insert(connection, Write.key(sequence));
            switch (kind) {
                case SQL_EXCEPTION -> queryInt(connection, "SELECT 1 / 0");
                case RUNTIME_EXCEPTION -> throw new IllegalStateException("runtime failure in operation " + sequence);
                case ERROR -> throw new SimulatedError("error in operation " + sequence);
                case STATEMENT_TIMEOUT -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("SET LOCAL statement_timeout = 5");
                        statement.execute("SELECT pg_sleep(1)");
                    }
                }
                case LOCK_TIMEOUT -> {
                    // Every workload sets a short lock_timeout; the row locker and other operations hold this row.
                    try (Statement statement = connection.createStatement()) {
                        statement.executeUpdate("UPDATE hot_row SET n = n + 1 WHERE id = 1");
                    }
                }
                case TERMINATE_MID_WORK -> queryInt(connection, "SELECT 1 FROM pg_terminate_backend(pg_backend_pid())");
                case TERMINATE_BEFORE_COMMIT ->
                        endBackendAndWaitUntilGone(database, queryInt(connection, "SELECT pg_backend_pid()"));
                case INTERRUPT_WHILE_RUNNING -> {
                    Thread.currentThread().interrupt();
                    queryInt(connection, "SELECT 1");
                }
                case CALLER_GIVES_UP -> queryInt(connection, "SELECT 1 FROM pg_sleep(0.002)");
                default -> {
                    // The insert is all the work.
                }
            }
            return null;
        } finally {
            workload.inWork().decrementAndGet();
        }
    }

    private String classify(Throwable failure) {
        if (failure instanceof SimulatedError) {
            return "error (Error)";
        }
        if (failure instanceof IllegalStateException) {
            return "runtime exception";
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLTransientConnectionException) {
                poolTimeouts.incrementAndGet();
                return "pool timeout";
            }
            if (cause instanceof SQLException sql) {
                String state = sql.getSQLState();
                if (state == null) {
                    // HikariCP's "interrupted during connection acquisition" carries no SQLState.
                    return "SQLException without SQLState, cause "
                            + (sql.getCause() == null ? "none" : sql.getCause().getClass().getSimpleName());
                }
                return switch (state) {
                    case "22012" -> "SQL exception 22012";
                    case "57014" -> "statement timeout 57014";
                    case "55P03" -> "lock timeout 55P03";
                    case "57P01" -> "backend terminated 57P01";
                    default -> state.startsWith("08") ? "connection lost 08xxx" : "SQLState " + state;
                };
            }
        }
        return "other " + failure.getClass().getSimpleName();
    }

    /**
     * Takes every connection the pool will give past the gate (the last request waits out the pool's timeout, so
     * the pool is then empty), and holds them until two gated operations met the pool's timeout or 30 finished.
     */
    private void exhaustThePoolFromOutside() {
        List<Connection> held = new ArrayList<>();
        try {
            while (held.size() < pool.getMaximumPoolSize()) {
                held.add(pool.getConnection());
            }
        } catch (SQLException exhausted) {
            // Every connection is taken: by this thread or by gated work.
        }
        long timeoutsAtStart = poolTimeouts.get();
        int finishedAtStart = finishedOperations.get();
        while (running.get() && poolTimeouts.get() < timeoutsAtStart + 2
                && finishedOperations.get() < finishedAtStart + 30 && nextOperation.get() < operations) {
            LockSupport.parkNanos(200_000);
        }
        for (Connection connection : held) {
            try {
                connection.close();
            } catch (SQLException e) {
                violations.add("the pool refused a connection back: " + e);
            }
        }
        hogging.set(false);
    }

    /** Outside every gate and pool, holds the hot row for 20 ms at a time while the soak runs. */
    private void holdTheHotRowNowAndThen() {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            while (running.get()) {
                statement.executeQuery("SELECT n FROM hot_row WHERE id = 1 FOR UPDATE").close();
                statement.executeQuery("SELECT pg_sleep(0.02)").close();
                connection.commit();
                tally(faults, "row lock held outside the gate");
                statement.executeQuery("SELECT pg_sleep(0.02)").close();
                connection.commit();
            }
        } catch (SQLException e) {
            violations.add("the row locker failed: " + e);
        }
    }

    /** Checks the limits of every workload, over and over, until the run ends. */
    private void sampleLimits() {
        while (running.get()) {
            for (Workload workload : workloads) {
                sample(workload);
            }
            samplePool();
            samples.increment();
            LockSupport.parkNanos(500_000);
        }
    }

    private void sample(Workload workload) {
        // The oldest generation any operation inside may have been admitted under; taken before the figures.
        int since = workload.limits().currentGeneration();
        for (int generation : workload.liveCallers().values()) {
            since = Math.min(since, generation);
        }
        int inWork = workload.inWork().get();
        int active = workload.gate().active();
        int waiting = workload.gate().waiting();
        String gateViolation = workload.limits().violationInGateFigures(workload.gate(), since);
        // A borrower runs beyond its own B on places the pool's other workloads lend: checked for the pool as a whole.
        int concurrentLimit = workload.limits().mostConcurrentSince(since) + workload.borrow();
        if (inWork > concurrentLimit) {
            violations.add(workload.name() + ": " + inWork + " operations in their work, B " + concurrentLimit);
        }
        if (active < 0 || active > concurrentLimit || waiting < 0) {
            violations.add(workload.name() + ": active() " + active + ", waiting() " + waiting + ", B " + concurrentLimit);
        }
        if (gateViolation != null) {
            violations.add(gateViolation);
        }
    }

    /**
     * The bound lending keeps for the pool: the operations in their work through all its gates never exceed the sum
     * of the B in force since the oldest of them entered — borrowing moves places between workloads, never adds any.
     * Checked only while some workload borrows.
     */
    private void samplePool() {
        if (workloads.stream().allMatch(workload -> workload.borrow() == 0)) {
            return;
        }
        int inWork = 0;
        int limit = 0;
        for (Workload workload : workloads) {
            int since = workload.limits().currentGeneration();
            for (int generation : workload.liveCallers().values()) {
                since = Math.min(since, generation);
            }
            limit += workload.limits().mostConcurrentSince(since);
            inWork += workload.inWork().get();
        }
        if (inWork > limit) {
            violations.add("the pool: " + inWork + " operations in their work through its gates, the sum of B " + limit);
        }
    }

    static void tally(Map<String, LongAdder> counts, String what) {
        counts.computeIfAbsent(what, k -> new LongAdder()).increment();
    }

    long seed() {
        return seed;
    }

    int operations() {
        return operations;
    }

    Map<Integer, Write> ledger() {
        return ledger;
    }

    List<String> violations() {
        return violations;
    }

    List<Thread> stuck() {
        return stuck;
    }

    long samples() {
        return samples.sum();
    }

    Map<String, Long> faults() {
        return sorted(faults);
    }

    Map<String, Long> results() {
        return sorted(results);
    }

    private static Map<String, Long> sorted(Map<String, LongAdder> counts) {
        Map<String, Long> sorted = new TreeMap<>();
        counts.forEach((what, count) -> sorted.put(what, count.sum()));
        return sorted;
    }
}
