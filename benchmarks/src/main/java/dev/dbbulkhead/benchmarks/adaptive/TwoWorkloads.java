package dev.dbbulkhead.benchmarks.adaptive;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.adaptive.AdaptiveScenario.Timing;
import dev.dbbulkhead.benchmarks.adaptive.AdaptiveScenario.Work;
import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.Occupancy;
import dev.dbbulkhead.benchmarks.load.OpenLoopLoad;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.saturation.SaturationLimits;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A critical and a sheddable workload on one pool, each behind a gate of its own, under a surge of ungated work in
 * the middle of the run; with a database's limit steering both, or with both B fixed.
 */
final class TwoWorkloads {

    static final int CRITICAL_B = 4;
    static final int SHEDDABLE_B = AdaptiveScenario.POOL_SIZE - CRITICAL_B;
    private static final long LIMIT_SAMPLE_NANOS = 100_000_000L;

    /** Each workload's calls and its B over time. */
    record Result(LimitRun critical, LimitRun sheddable) {
    }

    private TwoWorkloads() {
    }

    /**
     * @param signals where the sampler's session comes from; null for fixed B
     */
    static Result run(BenchDatabase database, Work work, int rows, double criticalRate, double sheddableRate,
                      @Nullable DataSource signals, int serverCpus, Timing timing) throws Exception {
        try (HikariDataSource pool = database.pool(AdaptiveScenario.POOL_SIZE, AdaptiveScenario.POOL_TIMEOUT,
                "two-workloads");
             HikariDataSource competing = database.pool(work.competing(), AdaptiveScenario.POOL_TIMEOUT,
                     "competing")) {
            AdmissionGate critical = new AdmissionGate("critical", GateConfig.builder().maxConcurrent(CRITICAL_B)
                    .maxQueued(0).build());
            AdmissionGate sheddable = new AdmissionGate("sheddable", GateConfig.builder().maxConcurrent(SHEDDABLE_B)
                    .maxQueued(0).build());
            FollowedDatabase followed = signals == null ? null : FollowedDatabase.start(signals, serverCpus, List.of(
                    FollowedDatabase.governed(critical, SaturationLimits.Mode.STEER, Criticality.CRITICAL, CRITICAL_B),
                    FollowedDatabase.governed(sheddable, SaturationLimits.Mode.STEER, Criticality.SHEDDABLE,
                            SHEDDABLE_B)));
            try {
                JdbcBulkhead criticalBulkhead = new JdbcBulkhead(critical, pool);
                JdbcBulkhead sheddableBulkhead = new JdbcBulkhead(sheddable, pool);
                LoadStream criticalCalls = new LoadStream("critical", criticalRate,
                        () -> criticalBulkhead.transaction(connection -> work.run(connection, rows)));
                LoadStream sheddableCalls = new LoadStream("sheddable", sheddableRate,
                        () -> sheddableBulkhead.transaction(connection -> work.run(connection, rows)));
                RunConditions.settleHeap();
                long origin = System.nanoTime();
                List<double[]> criticalLimits = new CopyOnWriteArrayList<>();
                List<double[]> sheddableLimits = new CopyOnWriteArrayList<>();
                Thread watcher = Thread.ofPlatform().daemon().name("limit-sampler").start(() -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        double second = (System.nanoTime() - origin) / 1e9;
                        criticalLimits.add(new double[] {second, critical.config().maxConcurrent()});
                        sheddableLimits.add(new double[] {second, sheddable.config().maxConcurrent()});
                        LockSupport.parkNanos(LIMIT_SAMPLE_NANOS);
                    }
                });
                List<Thread> competitors = AdaptiveScenario.startCompeting(competing, work, rows, origin, timing);
                Map<String, CallLog> logs = OpenLoopLoad.run(List.of(criticalCalls, sheddableCalls),
                        Duration.ofNanos((long) (timing.changeWindow() * 1e9)),
                        AdaptiveScenario.POOL_TIMEOUT.plusSeconds(1), new Occupancy());
                watcher.interrupt();
                watcher.join();
                for (Thread competitor : competitors) {
                    competitor.join();
                }
                return new Result(new LimitRun("critical", logs.get("critical"), List.copyOf(criticalLimits)),
                        new LimitRun("sheddable", logs.get("sheddable"), List.copyOf(sheddableLimits)));
            } finally {
                if (followed != null) {
                    followed.close();
                }
            }
        }
    }
}
