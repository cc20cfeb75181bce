package dev.dbbulkhead.benchmarks.adaptive;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.saturation.DatabaseSampler;
import dev.dbbulkhead.saturation.PostgresSignals;
import dev.dbbulkhead.saturation.SamplerSettings;
import dev.dbbulkhead.saturation.SaturationLimits;
import dev.dbbulkhead.saturation.SaturationPolicy;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import javax.sql.DataSource;

/**
 * The limit that follows the database, for one run: gates governed by it, fed by a sampler of their own at the
 * default interval on a thread of its own, until closed.
 */
final class FollowedDatabase implements AutoCloseable {

    private final SaturationLimits limits;
    private final DatabaseSampler sampler;
    private final ScheduledExecutorService scheduler;

    private FollowedDatabase(SaturationLimits limits, DatabaseSampler sampler, ScheduledExecutorService scheduler) {
        this.limits = limits;
        this.sampler = sampler;
        this.scheduler = scheduler;
    }

    /**
     * Starts sampling on sessions from {@code signals} and governing {@code governed}.
     *
     * @param serverCpus the server's processors
     */
    static FollowedDatabase start(DataSource signals, int serverCpus, List<SaturationLimits.Governed> governed) {
        System.Logger log = System.getLogger(SaturationLimits.class.getName());
        SaturationLimits limits = new SaturationLimits(new SaturationPolicy(serverCpus), governed, log,
                SaturationLimits.DEFAULT_RECOMMENDATION_WINDOW);
        DatabaseSampler sampler = new DatabaseSampler(signals, new PostgresSignals(), new SamplerSettings(
                SamplerSettings.DEFAULT_INTERVAL, SamplerSettings.DEFAULT_QUERY_TIMEOUT, serverCpus), log);
        sampler.onEachSample(limits::onSample);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(task ->
                Thread.ofPlatform().daemon().name("signals").unstarted(task));
        sampler.start(scheduler);
        return new FollowedDatabase(limits, sampler, scheduler);
    }

    /** {@code gate}, whose B of {@code maxConcurrent} the limit steers or only recommends for, down to 1. */
    static SaturationLimits.Governed governed(AdmissionGate gate, SaturationLimits.Mode mode, Criticality criticality,
                                              int maxConcurrent) {
        return new SaturationLimits.Governed(gate.workload(), mode, criticality, 1, () -> maxConcurrent, gate::active,
                () -> gate.waiting() > 0, gate::resizeConcurrent);
    }

    /** The limit, for the B it shows. */
    SaturationLimits limits() {
        return limits;
    }

    @Override
    public void close() {
        sampler.close();
        scheduler.shutdownNow();
    }
}
