package dev.dbbulkhead.benchmarks.adaptive;

import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.dbbulkhead.benchmarks.overload.GuardedTransactions;
import dev.dbbulkhead.benchmarks.overload.LimiterTransactions;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.limit.AdaptiveLimit;
import dev.dbbulkhead.limit.AdaptiveLimitConfig;
import dev.dbbulkhead.saturation.SaturationLimits;
import java.time.Duration;
import java.util.List;
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

    /** A limit in front of a pool, the limit in force at any moment, and what ends it after the run. */
    record Guarded(GuardedTransactions transactions, IntSupplier limit, Runnable close) {

        /** A limit with nothing to end. */
        Guarded(GuardedTransactions transactions, IntSupplier limit) {
            this(transactions, limit, () -> { });
        }
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
     * db-bulkhead with {@code limit.database=steer}: B starts at the pool's size and is capped at each sample of the
     * database's signals (the default 1 s), taken on a session of its own.
     *
     * @param signals    opens the sampler's session
     * @param serverCpus the server's processors
     */
    static Contender database(int poolSize, DataSource signals, int serverCpus) {
        return followingTheDatabase("database signals (db-bulkhead)", SaturationLimits.Mode.STEER, poolSize, signals,
                serverCpus);
    }

    /**
     * A fixed B of the pool's size, with {@code limit.database=recommend}: its limit in force is the B recommended,
     * which the gate does not apply.
     */
    static Contender recommending(int poolSize, DataSource signals, int serverCpus) {
        return followingTheDatabase("recommendation at B=" + poolSize, SaturationLimits.Mode.RECOMMEND, poolSize,
                signals, serverCpus);
    }

    private static Contender followingTheDatabase(String label, SaturationLimits.Mode mode, int poolSize,
                                                  DataSource signals, int serverCpus) {
        return new Contender(label, pool -> {
            AdmissionGate gate = new AdmissionGate("database", GateConfig.builder().maxConcurrent(poolSize)
                    .maxQueued(0).build());
            FollowedDatabase database = FollowedDatabase.start(signals, serverCpus,
                    List.of(FollowedDatabase.governed(gate, mode, Criticality.DEFAULT, poolSize)));
            JdbcBulkhead bulkhead = new JdbcBulkhead(gate, pool);
            IntSupplier limit = mode == SaturationLimits.Mode.STEER ? () -> gate.config().maxConcurrent()
                    : () -> database.limits().limit(gate.workload()).map(SaturationLimits.Limit::cap)
                            .orElse(poolSize);
            return new Guarded(bulkhead::transaction, limit, database::close);
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
