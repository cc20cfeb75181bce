package dev.dbbulkhead.conformance;

import static dev.dbbulkhead.conformance.BulkheadConformanceTests.insert;
import static dev.dbbulkhead.conformance.BulkheadConformanceTests.sqlExceptionIn;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Many virtual threads, each running a few operations of every kind through one bulkhead, while the in-flight
 * count is taken inside the work and the admitted count is sampled from the gate. Each operation's outcome is
 * classified; anything outside the contract is collected as unexpected.
 */
final class MixedLoad {

    private static final int KINDS = 8;

    private final Bulkhead bulkhead;
    private final HikariDataSource pool;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger mostInFlight = new AtomicInteger();
    private final AtomicInteger mostAdmitted = new AtomicInteger();
    private final AtomicInteger operations = new AtomicInteger();
    private final AtomicLong committed = new AtomicLong();
    private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    private final List<Throwable> unexpected = new CopyOnWriteArrayList<>();
    private volatile boolean sampling = true;

    MixedLoad(Bulkhead bulkhead, HikariDataSource pool) {
        this.bulkhead = bulkhead;
        this.pool = pool;
    }

    void run(int threads, int operationsPerThread) throws Exception {
        Thread sampler = Thread.ofPlatform().daemon().start(this::sampleAdmitted);
        Thread outsider = Thread.ofVirtual().start(this::exhaustThePoolFromOutsideNowAndThen);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> callers = new CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            callers.add(Thread.ofVirtual().start(() -> {
                BulkheadConformanceTests.hold(start);
                for (int i = 0; i < operationsPerThread; i++) {
                    runOne(thread * operationsPerThread + i);
                }
            }));
        }
        start.countDown();
        for (Thread caller : callers) {
            caller.join();
        }
        outsider.join();
        sampling = false;
        sampler.join();
    }

    /**
     * One operation of the kind its sequence number picks. A rejected operation is counted and tried again, so
     * every kind of work really runs however the threads happen to be scheduled.
     */
    private void runOne(int sequence) {
        int kind = Math.floorMod(sequence * 7, KINDS);
        try {
            while (!attempt(kind, sequence)) {
                // Back off instead of spinning: a yielding crowd of virtual threads can starve the very
                // threads whose timed waits have ended and that would free the permits.
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(100_000, 2_000_000));
            }
        } finally {
            operations.incrementAndGet();
        }
    }

    /** @return false when the gate rejected the attempt for want of room (to be tried again) */
    private boolean attempt(int kind, int sequence) {
        if (kind == 7) {
            // An interrupted caller: an execution-permit wait ends at once, and the flag survives.
            Thread.currentThread().interrupt();
        }
        try {
            bulkhead.transaction(connection -> work(connection, kind, sequence));
            committed.incrementAndGet();
            if (kind == 7) {
                unexpected.add(new AssertionError("an interrupted caller was admitted"));
            }
            record("committed");
        } catch (BulkheadRejectedException rejected) {
            if (rejected.reason() != RejectionReason.INTERRUPTED) {
                record("rejected:" + rejected.reason());
                return false;
            }
            if (kind != 7 || !Thread.currentThread().isInterrupted()) {
                unexpected.add(new AssertionError("interrupt where none was, or flag lost", rejected));
            }
            record("interrupted");
        } catch (SimulatedError error) {
            record("error");
        } catch (BulkheadMisuseException misuse) {
            unexpected.add(misuse);
        } catch (IllegalStateException runtime) {
            record("runtime");
        } catch (Throwable failure) {
            classifySqlFailure(failure);
        } finally {
            Thread.interrupted();
        }
        return true;
    }

    private Object work(Connection connection, int kind, int sequence) throws SQLException {
        mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        try {
            switch (kind) {
                case 0, 1, 2, 7 -> insert(connection, "j-" + sequence);
                case 3 -> {
                    insert(connection, "x-" + sequence);
                    BulkheadConformanceTests.queryInt(connection, "SELECT 1 / 0");
                }
                case 4 -> {
                    insert(connection, "x-" + sequence);
                    throw new IllegalStateException("runtime failure " + sequence);
                }
                case 5 -> {
                    insert(connection, "x-" + sequence);
                    throw new SimulatedError("error " + sequence);
                }
                case 6 -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("SET LOCAL statement_timeout = '5ms'");
                        statement.execute("SELECT pg_sleep(1)");
                    }
                }
                default -> throw new AssertionError(kind);
            }
            return null;
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private void classifySqlFailure(Throwable failure) {
        try {
            String state = sqlExceptionIn(failure).getSQLState();
            switch (state == null ? "" : state) {
                case "22012" -> record("sql-error");
                case "57014" -> record("statement-timeout");
                case "08001", "08003", "08006" -> record("pool-timeout");
                default -> {
                    if (sqlExceptionIn(failure) instanceof SQLTransientConnectionException) {
                        record("pool-timeout");
                    } else {
                        unexpected.add(failure);
                    }
                }
            }
        } catch (AssertionError noSqlException) {
            unexpected.add(failure);
        }
    }

    /**
     * Three times, takes three connections past the gate — leaving fewer than B to the gated work, so some of
     * it meets the pool's timeout — and holds them while a batch of operations passes.
     */
    private void exhaustThePoolFromOutsideNowAndThen() {
        for (int round = 0; round < 3; round++) {
            int seenAtStart = operations.get();
            try (Connection a = pool.getConnection(); Connection b = pool.getConnection();
                 Connection c = pool.getConnection()) {
                while (operations.get() < seenAtStart + 25 && operations.get() < 990) {
                    LockSupport.parkNanos(200_000);
                }
            } catch (SQLException poolBusy) {
                // The gated work held the pool at that moment; this round is skipped.
            }
        }
    }

    private void sampleAdmitted() {
        while (sampling) {
            int admitted = bulkhead.gate().config().maxAdmitted() - bulkhead.gate().availableAdmissionPermits();
            mostAdmitted.accumulateAndGet(admitted, Math::max);
            LockSupport.parkNanos(20_000);
        }
    }

    private void record(String outcome) {
        outcomes.computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
    }

    int operations() {
        return operations.get();
    }

    int mostInFlight() {
        return mostInFlight.get();
    }

    int mostAdmitted() {
        return mostAdmitted.get();
    }

    long committed() {
        return committed.get();
    }

    Set<String> outcomeKinds() {
        return outcomes.keySet();
    }

    List<Throwable> unexpected() {
        return unexpected;
    }

    @Override
    public String toString() {
        return "MixedLoad" + outcomes;
    }
}
