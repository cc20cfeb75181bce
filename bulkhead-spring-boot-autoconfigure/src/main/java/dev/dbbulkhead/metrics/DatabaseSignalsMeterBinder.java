package dev.dbbulkhead.metrics;

import dev.dbbulkhead.saturation.DatabaseSampler;
import dev.dbbulkhead.saturation.DatabaseSignals;
import dev.dbbulkhead.saturation.SaturationLimits;
import dev.dbbulkhead.saturation.WaitClass;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The {@code db.bulkhead.database.*} meters: the database's own signals as its sampler last read them. They belong to
 * the database, not to one workload, so they carry no {@code workload} tag. The gauges read the sample only while it
 * is current ({@link DatabaseSampler#current()}) and are NaN otherwise, so that a dashboard shows a gap rather than
 * an old value as if it were new; the counters are the server's own counts, as last read.
 */
public final class DatabaseSignalsMeterBinder implements MeterBinder {

    /** Gauges of the database's active sessions, tagged {@code wait}: cpu, lock, lwlock, io, ipc, client, other. */
    public static final String SESSIONS = "db.bulkhead.database.sessions";
    /** Time gauge of the oldest lock wait of a session of the database; 0 when none waits. */
    public static final String OLDEST_LOCK_WAIT = "db.bulkhead.database.lock.wait.oldest";
    /** Counter of transactions committed in the database, as the server counts them. */
    public static final String COMMITS = "db.bulkhead.database.commits";
    /** Counter of transactions rolled back in the database, as the server counts them. */
    public static final String ROLLBACKS = "db.bulkhead.database.rollbacks";
    /** Counter of deadlocks detected in the database, as the server counts them. */
    public static final String DEADLOCKS = "db.bulkhead.database.deadlocks";
    /** Time gauge of the largest replay lag of the server's replicas; NaN when it has none. */
    public static final String REPLICA_LAG = "db.bulkhead.database.replica.lag";
    /** Time gauge of how long the last sample's query took. */
    public static final String SAMPLE_DURATION = "db.bulkhead.database.sample.duration";
    /** Gauge of the samples that failed since the last that succeeded. */
    public static final String SAMPLE_FAILURES = "db.bulkhead.database.sample.failures";
    /**
     * Gauge of the cap the database's limit sets on a workload's B, tagged {@code workload} and {@code mode}: steer
     * (applied) or recommend (the B it recommends).
     */
    public static final String LIMIT = "db.bulkhead.database.limit";
    /**
     * Gauge of the B recommended for a workload over a window of samples ({@code limit.database=recommend}), tagged
     * {@code workload}; NaN until its window held enough samples.
     */
    public static final String RECOMMENDED_LIMIT = "db.bulkhead.database.recommended.limit";

    private final DatabaseSampler sampler;
    private final @Nullable SaturationLimits limits;

    /**
     * @param sampler the database's sampler, whose last sample the meters read
     * @param limits  the workloads whose B follows the database; null for none
     */
    public DatabaseSignalsMeterBinder(DatabaseSampler sampler, @Nullable SaturationLimits limits) {
        this.sampler = sampler;
        this.limits = limits;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (WaitClass waitClass : WaitClass.values()) {
            Gauge.builder(SESSIONS, sampler, current(signals -> signals.active(waitClass)))
                    .tag("wait", waitClass.name().toLowerCase(Locale.ROOT))
                    .description("The database's sessions running a statement, by what they waited for when sampled")
                    .register(registry);
        }
        TimeGauge.builder(OLDEST_LOCK_WAIT, sampler, TimeUnit.SECONDS,
                        current(signals -> seconds(signals.oldestLockWait(), 0.0)))
                .description("How long the oldest lock wait of a session of the database had lasted when sampled")
                .register(registry);
        TimeGauge.builder(REPLICA_LAG, sampler, TimeUnit.SECONDS,
                        current(signals -> seconds(signals.replicaLag(), Double.NaN)))
                .description("The largest replay lag of the server's replicas when sampled")
                .register(registry);
        TimeGauge.builder(SAMPLE_DURATION, sampler, TimeUnit.SECONDS,
                        latest(signals -> seconds(signals.queryTime(), Double.NaN)))
                .description("How long the sampler's last query took")
                .register(registry);
        Gauge.builder(SAMPLE_FAILURES, sampler, DatabaseSampler::failuresInARow)
                .description("Samples of the database's signals that failed since the last that succeeded")
                .register(registry);
        counter(registry, COMMITS, DatabaseSignals::commits, "Transactions committed in the database");
        counter(registry, ROLLBACKS, DatabaseSignals::rollbacks, "Transactions rolled back in the database");
        counter(registry, DEADLOCKS, DatabaseSignals::deadlocks, "Deadlocks detected in the database");
        SaturationLimits governed = limits;
        if (governed != null) {
            for (SaturationLimits.Limit limit : governed.limits()) {
                String workload = limit.workload();
                Gauge.builder(LIMIT, governed, each -> each.limit(workload).map(SaturationLimits.Limit::cap)
                                .orElse(0))
                        .tag("workload", workload)
                        .tag("mode", limit.mode().name().toLowerCase(Locale.ROOT))
                        .description("The cap the database's saturation sets on the workload's B: applied when"
                                + " steering, the B it recommends when recommending")
                        .register(registry);
                if (limit.mode() == SaturationLimits.Mode.RECOMMEND) {
                    Gauge.builder(RECOMMENDED_LIMIT, governed, each -> each.recommendation(workload)
                                    .map(recommendation -> (double) recommendation.limit()).orElse(Double.NaN))
                            .tag("workload", workload)
                            .description("The B recommended for the workload: the median of the B the samples over"
                                    + " the recommendation window pointed to, moved only on a real change")
                            .register(registry);
                }
            }
        }
    }

    private void counter(MeterRegistry registry, String name, ToLongFunction<DatabaseSignals> count,
                         String description) {
        FunctionCounter.builder(name, sampler, latest(count::applyAsLong))
                .description(description + ", as the server counts them (since its statistics were last reset)")
                .register(registry);
    }

    private static ToDoubleFunction<DatabaseSampler> current(ToDoubleFunction<DatabaseSignals> value) {
        return sampler -> sampler.current().map(value::applyAsDouble).orElse(Double.NaN);
    }

    private static ToDoubleFunction<DatabaseSampler> latest(ToDoubleFunction<DatabaseSignals> value) {
        return sampler -> sampler.latest().map(value::applyAsDouble).orElse(Double.NaN);
    }

    private static double seconds(@Nullable Duration duration, double none) {
        return duration == null ? none : duration.toNanos() / 1e9;
    }
}
