package dev.dbbulkhead.fleet.support;

import dev.dbbulkhead.fleet.ConcurrencyCeiling;
import dev.dbbulkhead.fleet.FleetMember;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.springframework.context.SmartLifecycle;

/**
 * This application's membership of the fleet as a lifecycle: it joins, once the fleet has room for its floor, before
 * the web server starts serving and
 * leaves after the web server stopped, so that the share it gives back is no longer in use. Holds the ceilings
 * through which anything else that sets a coordinated workload's B must go.
 */
public final class FleetMembership implements SmartLifecycle {

    /** Starts before and stops after the web server (whose phases are {@code DEFAULT_PHASE - 1024} and lower). */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final FleetMember member;
    private final Map<String, ConcurrencyCeiling> ceilings = new LinkedHashMap<>();
    private final ScheduledExecutorService scheduler;
    private volatile boolean running;

    /**
     * @param factory  builds the member on the membership's own scheduler, a daemon thread pool of two
     * @param ceilings the ceilings of the coordinated workloads, one per workload
     */
    public FleetMembership(MemberFactory factory, List<ConcurrencyCeiling> ceilings) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(2, task -> {
            Thread thread = new Thread(task, "db-bulkhead-fleet");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.scheduler = executor;
        ceilings.forEach(ceiling -> this.ceilings.put(ceiling.workload(), ceiling));
        this.member = factory.create(executor);
    }

    /** Builds the member on the membership's own scheduler. */
    @FunctionalInterface
    public interface MemberFactory {

        /** The member, heartbeating on {@code scheduler}. */
        FleetMember create(ScheduledExecutorService scheduler);
    }

    /**
     * Joins before the web server serves: waits, for at most the lease ttl, until the fleet has room for the member's
     * floor ({@link FleetMember#startWithinBudget}), so that the instance takes no traffic on connections the budget
     * does not cover.
     */
    @Override
    public void start() {
        member.startWithinBudget(member.settings().leaseTtl());
        running = true;
    }

    @Override
    public void stop() {
        try {
            member.stop();
        } finally {
            running = false;
            scheduler.shutdown();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** The member as it stands. */
    public FleetMember.Snapshot snapshot() {
        return member.snapshot();
    }

    /** The ceiling of a coordinated workload; empty for a workload on another data source. */
    public Optional<ConcurrencyCeiling> ceiling(String workload) {
        return Optional.ofNullable(ceilings.get(workload));
    }

    /** The ceilings of the coordinated workloads, in configuration order. */
    public Map<String, ConcurrencyCeiling> ceilings() {
        return Collections.unmodifiableMap(ceilings);
    }
}
