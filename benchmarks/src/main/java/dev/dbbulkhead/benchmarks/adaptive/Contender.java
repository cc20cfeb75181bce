package dev.dbbulkhead.benchmarks.adaptive;

import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.dbbulkhead.benchmarks.overload.GuardedTransactions;
import dev.dbbulkhead.benchmarks.overload.LimiterTransactions;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.limit.AdaptiveLimit;
import dev.dbbulkhead.limit.AdaptiveLimitConfig;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.IntSupplier;
import javax.sql.DataSource;

/**
 * One way of limiting concurrency in front of the pool, all with no queue (Q = 0: over the limit is refused at
 * once), so that only how the limit is chosen differs.
 *
 * @param label in tables and charts
 * @param open  puts the limit in front of a pool
 */
record Contender(String label, Function<DataSource, Guarded> open) {

    /** A limit in front of a pool, and the limit in force at any moment. */
    record Guarded(GuardedTransactions transactions, IntSupplier limit) {
    }

    /** db-bulkhead with a fixed B. */
    static Contender fixed(int maxConcurrent) {
        return new Contender("fixed B=" + maxConcurrent, pool -> {
            JdbcBulkhead bulkhead = new JdbcBulkhead("fixed", pool, maxConcurrent, 0, Duration.ZERO);
            return new Guarded(bulkhead::transaction, () -> maxConcurrent);
        });
    }

    /** db-bulkhead with {@code limit.mode=adaptive}, starting at and capped by the pool's size. */
    static Contender adaptive(int poolSize) {
        return new Contender("adaptive (db-bulkhead)", pool -> {
            AdaptiveLimit limit = new AdaptiveLimit(AdaptiveLimitConfig.builder().minConcurrent(1)
                    .maxConcurrent(poolSize).build(), poolSize, change -> { });
            AdmissionGate gate = new AdmissionGate("adaptive", GateConfig.builder().maxConcurrent(poolSize)
                    .maxQueued(0).build(), limit);
            limit.drive(gate);
            JdbcBulkhead bulkhead = new JdbcBulkhead(gate, pool);
            return new Guarded(bulkhead::transaction, () -> gate.config().maxConcurrent());
        });
    }

    /**
     * Netflix concurrency-limits' Gradient2 around the transaction, with the library's default settings except the
     * bounds, which are ours (1 to the pool's size, starting at it): its default floor of 20 would keep it at 20.
     */
    static Contender gradient2(int poolSize) {
        return new Contender("Gradient2 (Netflix)", pool -> {
            SimpleLimiter<Void> limiter = SimpleLimiter.newBuilder().limit(Gradient2Limit.newBuilder()
                    .initialLimit(poolSize).minLimit(1).maxConcurrency(poolSize).build()).build();
            GuardedTransactions transactions = LimiterTransactions.behind(limiter, null, pool,
                    "Gradient2 limit reached");
            return new Guarded(transactions, limiter::getLimit);
        });
    }
}
