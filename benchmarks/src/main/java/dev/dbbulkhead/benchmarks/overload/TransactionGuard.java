package dev.dbbulkhead.benchmarks.overload;

import dev.dbbulkhead.benchmarks.alternatives.ConcurrencyLimitedCalls;
import dev.dbbulkhead.benchmarks.alternatives.Resilience4jBulkheads;
import dev.dbbulkhead.benchmarks.alternatives.SpringResilience;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.jdbc.SqlWork;
import io.github.resilience4j.bulkhead.Bulkhead;
import java.util.concurrent.Callable;
import javax.sql.DataSource;

/** The guards compared on real PostgreSQL: the same transaction on the same kind of pool behind each. */
public enum TransactionGuard {

    /** No guard: callers queue in HikariCP's {@code getConnection()} for up to its connection timeout. */
    NONE("none (HikariCP wait)") {
        @Override
        public GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring) {
            return behind(Callable::call, pool);
        }
    },

    /** Resilience4j's semaphore bulkhead: B concurrent calls, a caller waits up to the queue wait, no queue bound. */
    RESILIENCE4J("Resilience4j bulkhead") {
        @Override
        public GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring) {
            Bulkhead bulkhead = Resilience4jBulkheads.semaphoreBulkhead(workload, budget.maxConcurrent(),
                    budget.queueWait(), false);
            return behind(bulkhead::executeCallable, pool);
        }
    },

    /** {@code @ConcurrencyLimit(limit = B, policy = REJECT)} through its Spring proxy. */
    SPRING_REJECT("@ConcurrencyLimit REJECT") {
        @Override
        public GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring) {
            requirePoolSizedLimit(budget);
            return behind(spring.calls()::poolSizedRejecting, pool);
        }
    },

    /** {@code @ConcurrencyLimit(limit = B)} with its default policy: callers over the limit wait without bound. */
    SPRING_BLOCK("@ConcurrencyLimit BLOCK (default)") {
        @Override
        public GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring) {
            requirePoolSizedLimit(budget);
            return behind(spring.calls()::poolSizedBlocking, pool);
        }
    },

    /** db-bulkhead's {@link JdbcBulkhead}: B running, Q waiting at most the queue wait, the rest refused at once. */
    DB_BULKHEAD("db-bulkhead") {
        @Override
        public GuardedTransactions open(String workload, DataSource pool, Budget budget, SpringResilience spring) {
            JdbcBulkhead bulkhead = new JdbcBulkhead(workload, pool, budget.maxConcurrent(), budget.maxQueued(),
                    budget.queueWait());
            return bulkhead::transaction;
        }
    };

    private final String label;

    TransactionGuard(String label) {
        this.label = label;
    }

    /** The name in tables and charts. */
    public String label() {
        return label;
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

    private static void requirePoolSizedLimit(Budget budget) {
        // The annotation's limit is a constant: make sure it is the B the other guards get.
        if (budget.maxConcurrent() != ConcurrencyLimitedCalls.POOL_SIZED_LIMIT) {
            throw new IllegalArgumentException("@ConcurrencyLimit is compiled with limit "
                    + ConcurrencyLimitedCalls.POOL_SIZED_LIMIT + ", the budget asks for " + budget.maxConcurrent());
        }
    }
}
