package dev.dbbulkhead.benchmarks.overload;

import dev.dbbulkhead.benchmarks.alternatives.ConcurrencyLimitedCalls;
import dev.dbbulkhead.benchmarks.alternatives.Resilience4jBulkheads;
import dev.dbbulkhead.benchmarks.alternatives.SpringResilience;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.QueueDiscipline;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.jdbc.SqlWork;
import io.github.resilience4j.bulkhead.Bulkhead;
import java.sql.SQLException;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import javax.sql.DataSource;

/** The guards compared on real PostgreSQL: the same transaction on the same kind of pool behind each. */
public enum TransactionGuard {

    /** No guard: callers queue in HikariCP's {@code getConnection()} for up to its connection timeout. */
    NONE("none (HikariCP wait)", "none") {
        @Override
        public GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring) {
            return behind(Callable::call, pool);
        }
    },

    /** Resilience4j's semaphore bulkhead: B concurrent calls, a caller waits up to the queue wait, no queue bound. */
    RESILIENCE4J("Resilience4j bulkhead", "Resilience4j") {
        @Override
        public GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring) {
            Bulkhead bulkhead = Resilience4jBulkheads.semaphoreBulkhead(workload, budget.maxConcurrent(),
                    budget.queueWait(), false);
            return behind(bulkhead::executeCallable, pool);
        }
    },

    /** {@code @ConcurrencyLimit(limit = B, policy = REJECT)} through its Spring proxy. */
    SPRING_REJECT("@ConcurrencyLimit REJECT", "@CL REJECT") {
        @Override
        public GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring) {
            requirePoolSizedLimit(budget);
            return behind(spring.calls()::poolSizedRejecting, pool);
        }
    },

    /** {@code @ConcurrencyLimit(limit = B)} with its default policy: callers over the limit wait without bound. */
    SPRING_BLOCK("@ConcurrencyLimit BLOCK (default)", "@CL BLOCK") {
        @Override
        public GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring) {
            requirePoolSizedLimit(budget);
            return behind(spring.calls()::poolSizedBlocking, pool);
        }
    },

    /**
     * db-bulkhead's {@link JdbcBulkhead}: B running, Q waiting at most the queue wait in arrival order
     * ({@link QueueDiscipline#FIFO}), the rest refused at once.
     */
    DB_BULKHEAD("db-bulkhead fifo", "db-bh fifo") {
        @Override
        public GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring) {
            return gated(workload, pool, budget, QueueDiscipline.FIFO);
        }
    },

    /**
     * The same {@link JdbcBulkhead} with the {@link QueueDiscipline#CODEL} queue discipline at its default target
     * delay and interval: newest first, and shedding, while the queue stands.
     */
    DB_BULKHEAD_CODEL("db-bulkhead CoDel", "db-bh CoDel") {
        @Override
        public GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring) {
            return gated(workload, pool, budget, QueueDiscipline.CODEL);
        }
    };

    private final String label;
    private final String shortLabel;

    TransactionGuard(String label, String shortLabel) {
        this.label = label;
        this.shortLabel = shortLabel;
    }

    /** The name in tables and chart legends. */
    public String label() {
        return label;
    }

    /** The name under a chart's bars, where five or six must fit side by side. */
    public String shortLabel() {
        return shortLabel;
    }

    /**
     * @param workload what the guard is called (it names its rejections)
     * @param pool     where connections come from
     * @param budget   B, Q and the queue wait, as far as the guard has such settings
     * @param spring   the Spring context holding the {@code @ConcurrencyLimit} bean
     */
    public abstract GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring);

    /** A guard that admits a call by running it (or refusing to), around a plain transaction. */
    @FunctionalInterface
    private interface Admission {
        <T> T around(Callable<T> call) throws Exception;
    }

    private static GuardedTransactions behind(Admission admission, DataSource pool) {
        return new GuardedTransactions() {
            @Override
            public <T> T transaction(SqlWork<T> work) throws Exception {
                return admission.around(() -> PlainTransaction.run(pool, work));
            }
        };
    }

    private static GuardedTransactions gated(String workload, DataSource pool, Budget budget,
                                             QueueDiscipline discipline) {
        AdmissionGate gate = new AdmissionGate(workload, GateConfig.builder()
                .maxConcurrent(budget.maxConcurrent())
                .maxQueued(budget.maxQueued())
                .queueWait(budget.queueWait())
                .queueDiscipline(discipline)
                .build());
        JdbcBulkhead bulkhead = new JdbcBulkhead(gate, pool);
        return new GuardedTransactions() {
            @Override
            public <T> T transaction(SqlWork<T> work) throws SQLException {
                return bulkhead.transaction(work);
            }

            @Override
            public OptionalLong shedCount() {
                return OptionalLong.of(gate.shedCount());
            }
        };
    }

    private static void requirePoolSizedLimit(Budget budget) {
        // The annotation's limit is a constant: make sure it is the B the other guards get.
        if (budget.maxConcurrent() != ConcurrencyLimitedCalls.POOL_SIZED_LIMIT) {
            throw new IllegalArgumentException("@ConcurrencyLimit is compiled with limit "
                    + ConcurrencyLimitedCalls.POOL_SIZED_LIMIT + ", the budget asks for " + budget.maxConcurrent());
        }
    }
}
