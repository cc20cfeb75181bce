package dev.dbbulkhead.fleet.support;

import dev.dbbulkhead.fleet.FleetMember;
import dev.dbbulkhead.fleet.GateShares;
import dev.dbbulkhead.fleet.ShareTarget;
import dev.dbbulkhead.limit.ConcurrencyCeiling;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.SmartLifecycle;

/**
 * This application's membership of the fleet. It joins as soon as it exists, once the fleet has room for its floor:
 * the starter makes schema initialisation, migrations and the JPA bootstrap wait for it, so that what they borrow is
 * within the budget. It attaches the gates at the first {@link #ceilings()} (the starter asks as soon as the gates
 * exist), and at the latest once the application's beans exist: the gates come with the transaction managers that
 * start-up prepares. It leaves after the web server stopped, so that the share it gives back is no longer in use.
 * Holds the ceilings through which anything else that sets a coordinated workload's B must go.
 */
public final class FleetMembership
        implements InitializingBean, SmartInitializingSingleton, SmartLifecycle, DisposableBean {

    /** Starts before and stops after the web server (whose phases are {@code DEFAULT_PHASE - 1024} and lower). */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final Log logger = LogFactory.getLog(FleetMembership.class);

    private final FleetMember member;
    private final Supplier<List<ConcurrencyCeiling>> coordinatedGates;
    private final GatesAttachedLater gates = new GatesAttachedLater();
    private final ReentrantLock attaching = new ReentrantLock();
    private final AtomicBoolean left = new AtomicBoolean();
    private final ScheduledExecutorService scheduler;
    /** The ceilings by workload once the gates are attached; null before. */
    private volatile @Nullable Map<String, ConcurrencyCeiling> ceilings;
    private volatile boolean running;

    /**
     * @param factory          builds the member on the membership's own scheduler, a daemon thread pool of two,
     *                         with the gates' part of the share among its targets
     * @param coordinatedGates the ceilings of the coordinated workloads, one per workload: asked once, when the
     *                         application's beans exist
     */
    public FleetMembership(MemberFactory factory, Supplier<List<ConcurrencyCeiling>> coordinatedGates) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(2, task -> {
            Thread thread = new Thread(task, "db-bulkhead-fleet");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.scheduler = executor;
        this.coordinatedGates = coordinatedGates;
        this.member = factory.create(executor, gates);
    }

    /** Builds the member on the membership's own scheduler. */
    @FunctionalInterface
    public interface MemberFactory {

        /**
         * The member, heartbeating on {@code scheduler}.
         *
         * @param gates the gates' part of the share, to put among the member's targets: it bounds the coordinated
         *              gates once they are attached
         */
        FleetMember create(ScheduledExecutorService scheduler, ShareTarget gates);
    }

    /**
     * Joins before anything borrows from the pool at start-up: waits, for at most the lease ttl, until the fleet has
     * room for the member's floor ({@link FleetMember#startWithinBudget}).
     */
    @Override
    public void afterPropertiesSet() {
        member.startWithinBudget(member.settings().leaseTtl());
    }

    /** Attaches the gates once the application's beans exist. */
    @Override
    public void afterSingletonsInstantiated() {
        attachedCeilings();
    }

    /** Marks the membership running before the web server serves; the gates are attached by then. */
    @Override
    public void start() {
        attachedCeilings();
        running = true;
    }

    @Override
    public void stop() {
        try {
            leave();
        } finally {
            running = false;
        }
    }

    /** Leaves the fleet if the application did not get to stop it: a start-up that failed after the join. */
    @Override
    public void destroy() {
        leave();
    }

    private void leave() {
        if (left.compareAndSet(false, true)) {
            try {
                member.stop();
            } finally {
                scheduler.shutdown();
            }
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
        return Optional.ofNullable(attachedCeilings().get(workload));
    }

    /** The ceilings of the coordinated workloads, in configuration order. */
    public Map<String, ConcurrencyCeiling> ceilings() {
        return attachedCeilings();
    }

    /** The ceilings, the gates attached first if they were not. */
    private Map<String, ConcurrencyCeiling> attachedCeilings() {
        Map<String, ConcurrencyCeiling> attached = ceilings;
        if (attached != null) {
            return attached;
        }
        attaching.lock();
        try {
            Map<String, ConcurrencyCeiling> current = ceilings;
            if (current == null) {
                List<ConcurrencyCeiling> coordinated = coordinatedGates.get();
                Map<String, ConcurrencyCeiling> byWorkload = new LinkedHashMap<>();
                coordinated.forEach(ceiling -> byWorkload.put(ceiling.workload(), ceiling));
                if (!coordinated.isEmpty() && !gates.attach(new GateShares(coordinated))) {
                    logger.warn("Fleet member " + member.settings().memberId() + " has " + coordinated.size()
                            + " coordinated workloads but a floor of " + member.settings().floor()
                            + " connections: on its floor each gate keeps a B of 1 and the pool bounds what the"
                            + " database sees; set db.bulkhead.fleet.floor to at least " + coordinated.size());
                }
                current = Collections.unmodifiableMap(byWorkload);
                ceilings = current;
            }
            return current;
        } finally {
            attaching.unlock();
        }
    }
}
