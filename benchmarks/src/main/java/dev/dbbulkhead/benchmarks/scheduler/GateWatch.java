package dev.dbbulkhead.benchmarks.scheduler;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.benchmarks.overload.GuardedTransactions;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.jdbc.SqlWork;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches one gate during a run, from outside, through its public observation methods only: how many of its B places
 * are taken ({@link AdmissionGate#active()}, sampled every {@value #PERIOD_MICROS} µs while arrivals come), and the
 * {@code OVER_FAIR_SHARE} refusals its callers meet, with those met while a place was free: fewer than B running and
 * nobody admitted waiting for a place (a place that is free while someone waits is being handed over, not idle). Read
 * right after the refusal reaches its caller: best effort, a place freed and taken again between the gate's decision
 * and the read is missed, one freed in between is counted.
 */
final class GateWatch implements AutoCloseable {

    static final long PERIOD_MICROS = 1_000;

    private final AdmissionGate gate;
    private final int places;
    private final AtomicInteger overFairShare = new AtomicInteger();
    private final AtomicInteger overFairShareWhileFree = new AtomicInteger();
    private Thread sampler;
    private volatile boolean stopped;
    private long takenSampled;
    private long allTakenSamples;
    private long samples;

    /**
     * @param places the gate's B
     */
    GateWatch(AdmissionGate gate, int places) {
        this.gate = gate;
        this.places = places;
    }

    /** Samples the places taken for {@code window} from now (the arrivals' window), then stops. */
    void start(Duration window) {
        long end = System.nanoTime() + window.toNanos();
        sampler = Thread.ofPlatform().daemon().name("gate-watch").start(() -> {
            while (!stopped && System.nanoTime() - end < 0) {
                int taken = Math.min(places, gate.active());
                takenSampled += taken;
                if (taken == places) {
                    allTakenSamples++;
                }
                samples++;
                LockSupport.parkNanos(PERIOD_MICROS * 1_000);
            }
        });
    }

    /** {@code transactions} with their {@code OVER_FAIR_SHARE} refusals counted. */
    GuardedTransactions watching(GuardedTransactions transactions) {
        return new GuardedTransactions() {
            @Override
            public <T> T transaction(SqlWork<T> work) throws Exception {
                try {
                    return transactions.transaction(work);
                } catch (BulkheadRejectedException refused) {
                    refused(refused);
                    throw refused;
                }
            }
        };
    }

    /** Counts a refusal a caller met. */
    void refused(BulkheadRejectedException refused) {
        if (refused.reason() == RejectionReason.OVER_FAIR_SHARE) {
            overFairShare.incrementAndGet();
            if (gate.active() < places && gate.waiting() == 0) {
                overFairShareWhileFree.incrementAndGet();
            }
        }
    }

    /** The share of the B places taken, averaged over the samples: how busy the gate kept the workload's places. */
    double busy() {
        return samples == 0 ? Double.NaN : (double) takenSampled / ((double) samples * places);
    }

    /** The share of samples at which all B places were taken. */
    double allTaken() {
        return samples == 0 ? Double.NaN : (double) allTakenSamples / samples;
    }

    long samples() {
        return samples;
    }

    int overFairShare() {
        return overFairShare.get();
    }

    int overFairShareWhileFree() {
        return overFairShareWhileFree.get();
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        if (sampler != null) {
            sampler.join();
        }
    }
}
