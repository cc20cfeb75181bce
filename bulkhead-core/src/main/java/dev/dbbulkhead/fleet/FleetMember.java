package dev.dbbulkhead.fleet;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * This instance's membership of the fleet: it renews its lease every heartbeat — or, in a fleet of more than
 * {@value RenewalCadence#EVERY_HEARTBEAT_UP_TO} members whose coordinator announces its changes, every few
 * heartbeats while its share is settled ({@link RenewalCadence}) — and applies the share it was granted to its
 * {@link ShareTarget}s (gates, pool). While it rests it follows a total the coordinator announces with its value
 * ({@link FleetCoordinator#newsFor}) within its grant, without renewing. Mechanism only; the coordinator holds
 * the budget.
 *
 * <p>The rules that keep the fleet within its budget:
 * <ul>
 *   <li><b>Never use an ungranted share.</b> The instance grows only to what a renewal granted, and only while
 *       that lease is valid by its own clock: from the moment <em>before</em> it asked for the renewal, less two
 *       lease checks ({@link FleetSettings#leaseCheck()}), so that it has stopped using the share before the
 *       coordinator's clock lets anyone else take it.</li>
 *   <li><b>Join within the budget.</b> Started with {@link #startWithinBudget}, the member returns only once granted
 *       at least its floor, so that its first connection is within the budget too.</li>
 *   <li><b>Shrink before giving back.</b> A lowered target is applied to every target first; the share is given
 *       back in a second renewal as soon as the work admitted under the larger share has let go of its connections
 *       (waiting at most a heartbeat for it), and never below what the pool still holds.</li>
 *   <li><b>Unreachable coordinator.</b> The last share is kept until the lease would have expired, then the
 *       instance falls to its floor and grows again only with a new grant.</li>
 * </ul>
 * Thread-safe; the heartbeat and the lease check run on the given scheduler.
 */
public final class FleetMember {

    /** Where the member stands. */
    public enum Status {
        /** Started, no lease granted yet: on the floor. */
        JOINING,
        /** Holding an unexpired lease. */
        LEASED,
        /** Its lease expired unrenewed (coordinator unreachable): running on the floor. */
        LAPSED,
        /** Stopped: its share given back. */
        LEFT
    }

    /**
     * The member as it stands.
     *
     * @param memberId  its id
     * @param status    where it stands
     * @param applied   the connections its targets are bounded by now
     * @param granted   what its last lease granted (0 without a lease)
     * @param target    its fair share at its last renewal, or of the total announced since
     * @param budget    the fleet's budget at its last renewal (0 before one)
     * @param total     the fleet's total at its last renewal, or as announced since
     *                  ({@link FleetCoordinator#newsFor}), which the targets split: the budget, or less while it
     *                  follows the database (0 before one)
     * @param canServe  false when the connections applied leave a gate without one
     * @param leaseLeft how long its lease stays valid by its own reckoning; zero without a lease
     * @param members   the fleet at its last renewal, in member-id order
     * @param lastFailure why the last renewal failed; null when it succeeded
     * @param heartbeatsPerRenewal the heartbeats it lets pass between two renewals while its share is settled: 1 in a
     *                  fleet that renews every heartbeat, more in a large one ({@link RenewalCadence})
     * @param leaseTtl  the lease it asks for at each renewal: the configured lease ttl times
     *                  {@code heartbeatsPerRenewal}
     */
    public record Snapshot(String memberId, Status status, int applied, int granted, int target, int budget,
                           int total, boolean canServe, Duration leaseLeft, List<FleetMemberState> members,
                           @Nullable String lastFailure, int heartbeatsPerRenewal, Duration leaseTtl) {
    }

    /** How many ignored rows are reported one by one; past that one line says that more are not. */
    private static final int IGNORED_REPORTED = 100;

    private final FleetCoordinator coordinator;
    private final FleetLog log;
    private final FleetSettings settings;
    private final List<ShareTarget> targets;
    private final ScheduledExecutorService scheduler;
    private final LongSupplier nanoTime;
    private final long leaseCheckNanos;
    private final long heartbeatNanos;
    /** How often a wait for the targets to let go of connections looks again: a twentieth of a heartbeat. */
    private final long drainPollNanos;
    /** Held through a whole heartbeat, so that stopping waits for one in flight. */
    private final ReentrantLock renewal = new ReentrantLock();
    /** Guards the state below; never held while talking to the coordinator. */
    private final ReentrantLock state = new ReentrantLock();

    private Status status = Status.JOINING;
    /**
     * Set once {@link #stop()} begins: a heartbeat that was already running when its task was cancelled must not
     * renew after the share was given back, or its renewal would put the departed member's lease back.
     */
    private boolean stopping;
    private int applied;
    private boolean canServe;
    private long validUntilNanos;
    /** When the last renewal that was granted was asked for. */
    private long askedAtNanos;
    /** How long after {@link #askedAtNanos} a settled member renews next, when nothing changes before. */
    private long renewDueAfterNanos;
    /**
     * The heartbeats the member lets pass between two renewals while its share is settled, and the multiple of its
     * lease ttl it asks for ({@link RenewalCadence}); 1 until the coordinator announces the fleet's changes.
     */
    private int heartbeatsPerRenewal = 1;
    private @Nullable Lease lease;
    /**
     * The fleet's total announced since the last renewal that the member follows, and its target of it; 0 while it
     * follows none ({@link #followAnnouncedTotal}).
     */
    private int followedTotal;
    private int followedTarget;
    private @Nullable String lastFailure;
    private @Nullable ScheduledFuture<?> heartbeatTask;
    private @Nullable ScheduledFuture<?> leaseCheckTask;
    /** The ids of ignored rows already reported, so that each is reported once; bounded by {@link #IGNORED_REPORTED}. */
    private final Set<String> ignoredReported = new HashSet<>();
    private boolean ignoredReportFull;

    /**
     * @param targets   what uses the share, in the order to shrink them (they grow in reverse order)
     * @param scheduler runs the heartbeat and the lease check; stopping it without {@link #stop()} ends the
     *                  membership without a goodbye, as a killed process would
     * @param log       where it writes what it does; {@link FleetLog#systemLogger()} writes it to the platform logger
     */
    public FleetMember(FleetCoordinator coordinator, FleetSettings settings, List<ShareTarget> targets,
                       ScheduledExecutorService scheduler, FleetLog log) {
        this(coordinator, settings, targets, scheduler, log, System::nanoTime);
    }

    FleetMember(FleetCoordinator coordinator, FleetSettings settings, List<ShareTarget> targets,
                ScheduledExecutorService scheduler, FleetLog log, LongSupplier nanoTime) {
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
        this.log = Objects.requireNonNull(log, "log");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.targets = List.copyOf(targets);
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.nanoTime = nanoTime;
        this.leaseCheckNanos = settings.leaseCheck().toNanos();
        this.heartbeatNanos = settings.heartbeat().toNanos();
        this.drainPollNanos = Math.max(1, heartbeatNanos / 20);
    }

    /**
     * Falls to the floor, then starts renewing: the first heartbeat at once. The floor is used before the fleet has
     * granted anything; an instance that can wait before it uses a connection joins with {@link #startWithinBudget}.
     */
    public void start() {
        fallToFloorToJoin();
        startBeating(0);
    }

    /**
     * Joins the fleet before this instance uses a connection, so that its floor too is within the budget: renews on
     * the calling thread, and again every heartbeat while the grants of the others leave no room for its floor (they
     * hear of the newcomer and give back at their next heartbeat), then starts renewing as {@link #start()} does. The
     * targets stand on the floor meanwhile; the caller uses none of it before this returns.
     *
     * <p>Returns true once a renewal granted at least the floor. Returns false, the member then running on its floor
     * outside the budget until a renewal grants it, as after {@link #start()}:
     * <ul>
     *   <li>when {@code wait} passed first (a member that does not renew keeps its grant until its lease expired);</li>
     *   <li>at once when a renewal failed (coordinator unreachable: the heartbeat keeps trying) or was granted too late
     *       to be used;</li>
     *   <li>when the calling thread was interrupted while it waited; the interrupt flag stays set;</li>
     *   <li>when the member was stopped meanwhile; it then does not start renewing.</li>
     * </ul>
     *
     * @param wait how long to wait for room for the floor: the lease ttl lets any member that no longer renews lose
     *             its grant
     */
    public boolean startWithinBudget(Duration wait) {
        if (wait.isNegative()) {
            throw new IllegalArgumentException("wait must not be negative, was " + wait);
        }
        fallToFloorToJoin();
        boolean granted = awaitGrantOfFloor(wait);
        startBeating(granted ? heartbeatNanos : 0);
        return granted;
    }

    private void fallToFloorToJoin() {
        state.lock();
        try {
            applyLocked(settings.floor(), "joining");
        } finally {
            state.unlock();
        }
    }

    /** Renews until a lease grants at least the floor; see {@link #startWithinBudget} for every way it returns. */
    private boolean awaitGrantOfFloor(Duration wait) {
        long until = nanoTime.getAsLong() + wait.toNanos();
        renewal.lock();
        try {
            boolean reported = false;
            while (!isStopping()) {
                renewOnce();
                Lease granted = grantedLease();
                if (granted != null && granted.granted() >= settings.floor()) {
                    return true;
                }
                long left = until - nanoTime.getAsLong();
                if (granted == null || left <= 0 || Thread.currentThread().isInterrupted()) {
                    if (granted != null) {
                        log.warn("Fleet member " + settings.memberId() + ": no room for its floor of "
                                + settings.floor() + " within " + wait + " (" + grantAmong(granted) + "); it runs on"
                                + " its floor outside the budget until a renewal grants it", null);
                    }
                    return false;
                }
                if (!reported) {
                    reported = true;
                    log.info("Fleet member " + settings.memberId() + " waits for room for its floor of "
                            + settings.floor() + " (" + grantAmong(granted) + "): the others give back at their"
                            + " next heartbeat");
                }
                LockSupport.parkNanos(Math.min(heartbeatNanos, left));
            }
            return false;
        } finally {
            renewal.unlock();
        }
    }

    /** The lease of the last renewal while the member holds it; null after a failed or late one, or without a lease. */
    private @Nullable Lease grantedLease() {
        state.lock();
        try {
            return leased() && lastFailure == null ? lease : null;
        } finally {
            state.unlock();
        }
    }

    /** Schedules the heartbeat and the lease check, unless the member was stopped before. */
    private void startBeating(long firstHeartbeatNanos) {
        state.lock();
        try {
            if (stopping) {
                return;
            }
            heartbeatTask = scheduler.scheduleWithFixedDelay(this::heartbeat, firstHeartbeatNanos, heartbeatNanos,
                    TimeUnit.NANOSECONDS);
            leaseCheckTask = scheduler.scheduleWithFixedDelay(this::checkLease, leaseCheckNanos, leaseCheckNanos,
                    TimeUnit.NANOSECONDS);
        } finally {
            state.unlock();
        }
    }

    /**
     * Leaves the fleet: stops renewing, falls to the floor, waits while the pool still holds more (at most until
     * the lease would expire), then gives the share back. Returns once done; if the pool never drained or the
     * coordinator cannot be reached the share is not given back early and returns when the lease expires.
     */
    public void stop() {
        state.lock();
        try {
            stopping = true;
            cancel(heartbeatTask);
            cancel(leaseCheckTask);
        } finally {
            state.unlock();
        }
        renewal.lock();
        try {
            long validUntil;
            state.lock();
            try {
                applyLocked(settings.floor(), "leaving");
                // Without a valid lease there is nothing to wait for: the share is not the member's to use.
                validUntil = leased() ? validUntilNanos : nanoTime.getAsLong();
            } finally {
                state.unlock();
            }
            boolean drained = awaitInUseAtMost(settings.floor(), validUntil);
            boolean gaveBack = drained && giveBack();
            state.lock();
            try {
                status = Status.LEFT;
                lease = null;
            } finally {
                state.unlock();
            }
            log.info("Fleet member " + settings.memberId() + " left the fleet"
                    + (gaveBack ? ", its share given back" : ", its share returns when its lease expires"));
        } finally {
            renewal.unlock();
        }
    }

    /** The member as it stands now. */
    public Snapshot snapshot() {
        state.lock();
        try {
            long left = leased() ? Math.max(0, validUntilNanos - nanoTime.getAsLong()) : 0;
            boolean follows = lease != null && followedTotal > 0;
            return new Snapshot(settings.memberId(), status, applied, lease == null ? 0 : lease.granted(),
                    follows ? followedTarget : lease == null ? 0 : lease.target(), lease == null ? 0 : lease.budget(),
                    follows ? followedTotal : lease == null ? 0 : lease.total(), canServe,
                    Duration.ofNanos(left), lease == null ? List.of() : lease.members(), lastFailure,
                    heartbeatsPerRenewal, leaseTtlOver(heartbeatsPerRenewal));
        } finally {
            state.unlock();
        }
    }

    /** How this member takes part. */
    public FleetSettings settings() {
        return settings;
    }

    /** One heartbeat; package-private so that tests can beat on their own clock. */
    void heartbeat() {
        renewal.lock();
        try {
            if (isStopping()) {
                return;
            }
            if (mayRest()) {
                // Asked what it holds, a pool closes its idle connections above the share: one HikariCP was opening
                // when the share fell joins it afterwards, and would otherwise stay until the scheduled renewal.
                maxInUse();
                return;
            }
            if (renewOnce()) {
                // A lowered target was just applied, but work admitted under the larger share still holds connections:
                // give the freed share back as soon as that work is done (at most a heartbeat on), not a heartbeat
                // later, so that a newcomer grows at its next heartbeat.
                awaitInUseAtMost(appliedNow(), nanoTime.getAsLong() + heartbeatNanos);
                if (!Thread.currentThread().isInterrupted()) {
                    renewOnce();
                }
            }
        } catch (RuntimeException unexpected) {
            // A periodic task that throws is never run again: report and carry on with the next heartbeat.
            log.warn("Fleet member " + settings.memberId() + ": heartbeat failed", unexpected);
        } finally {
            renewal.unlock();
        }
    }

    /**
     * Whether this heartbeat may pass without a renewal: the member holds its settled share (granted its target) on
     * a lease that is not yet due, spread over several heartbeats ({@link RenewalCadence}), and the coordinator heard
     * of no change of the fleet since.
     */
    private boolean mayRest() {
        state.lock();
        try {
            Lease current = lease;
            if (status != Status.LEASED || current == null || lastFailure != null || heartbeatsPerRenewal == 1
                    || current.granted() != current.target()) {
                return false;
            }
            if (nanoTime.getAsLong() - askedAtNanos >= renewDueAfterNanos) {
                return false;
            }
        } finally {
            state.unlock();
        }
        FleetNews news = coordinator.newsFor(settings.memberId());
        if (news instanceof FleetNews.TotalMoved moved) {
            return followAnnouncedTotal(moved.total());
        }
        return news instanceof FleetNews.Unchanged;
    }

    /**
     * Applies the member's target of a total announced since its last renewal, computed from the fleet that renewal
     * saw exactly as a settlement would, when that target is within what the lease grants: lowering takes no renewal,
     * as the member only uses less than it holds, and neither does growing back within the grant. A target above the
     * grant needs the coordinator to grant it.
     *
     * @return whether the member followed the total and may rest; false when it must renew
     */
    private boolean followAnnouncedTotal(int total) {
        state.lock();
        try {
            Lease current = lease;
            if (current == null || total > current.budget()) {
                return false;
            }
            List<ShareSettlement.Holder> fleet = current.members().stream().map(member -> new ShareSettlement.Holder(
                    member.memberId(), member.weight(), member.demand(), member.granted())).toList();
            int target = ShareSettlement.targetOf(total, fleet, settings.memberId());
            if (target < 0 || target > current.granted()) {
                return false;
            }
            followedTotal = total;
            followedTarget = target;
            applyLocked(Math.max(settings.floor(), target), "the fleet's total moved to " + total + ": target "
                    + target + ", granted " + current.granted() + " among " + current.members().size() + " members");
            return true;
        } finally {
            state.unlock();
        }
    }

    /** The lease a member asks for when it renews once every {@code heartbeats}: that many lease ttls. */
    private Duration leaseTtlOver(int heartbeats) {
        return settings.leaseTtl().multipliedBy(heartbeats);
    }

    /** The heartbeats the next renewal spreads over, from the fleet's size at the last one. */
    private int nextHeartbeatsPerRenewal() {
        if (!coordinator.announcesChanges()) {
            return 1;
        }
        state.lock();
        try {
            Lease current = lease;
            return current == null ? 1
                    : RenewalCadence.heartbeatsPerRenewal(current.members().size(), settings.leaseTtl());
        } finally {
            state.unlock();
        }
    }

    /** @return whether the member now uses less than it is granted and should give the rest back */
    private boolean renewOnce() {
        int spread = nextHeartbeatsPerRenewal();
        Duration leaseTtl = leaseTtlOver(spread);
        long askedAt = nanoTime.getAsLong();
        Lease renewed;
        try {
            renewed = coordinator.renew(new LeaseRequest(settings.memberId(), settings.weight(), settings.demand(),
                    connectionsInUse(), leaseTtl, settings.sessionName()));
        } catch (FleetUnavailableException unavailable) {
            state.lock();
            try {
                if (lastFailure == null) {
                    log.warn("Fleet member " + settings.memberId() + " could not renew its lease;"
                            + " keeping " + applied + " connections while the lease lasts: "
                            + unavailable.getMessage(), null);
                }
                lastFailure = unavailable.getMessage();
            } finally {
                state.unlock();
            }
            checkLease();
            return false;
        }
        reportFenced(renewed.fenced());
        reportIgnored(renewed.ignored());
        state.lock();
        try {
            long validUntil = askedAt + leaseTtl.toNanos() - 2 * leaseCheckNanos;
            if (lastFailure != null) {
                log.info("Fleet member " + settings.memberId() + " renewed its lease again");
            }
            lastFailure = null;
            if (nanoTime.getAsLong() - validUntil >= 0) {
                // Granted too late to be used safely: the lease check keeps the member on its floor.
                return false;
            }
            validUntilNanos = validUntil;
            // Due half a heartbeat early, so that a heartbeat that runs late still renews in time.
            boolean onSchedule = askedAt - askedAtNanos >= renewDueAfterNanos;
            int heartbeats = onSchedule ? spread : RenewalCadence.heartbeatsAfterChange(settings.memberId(), spread);
            renewDueAfterNanos = heartbeats * heartbeatNanos - heartbeatNanos / 2;
            askedAtNanos = askedAt;
            if (spread != heartbeatsPerRenewal) {
                log.info("Fleet member " + settings.memberId() + ": " + (spread == 1 ? "renews every heartbeat"
                        : "renews every " + spread + " heartbeats while its share is settled, its lease lasting "
                        + leaseTtl + ",") + " among " + (lease == null ? 1 : lease.members().size())
                        + " members");
                heartbeatsPerRenewal = spread;
            }
            lease = renewed;
            followedTotal = 0;
            followedTarget = 0;
            if (status != Status.LEASED) {
                log.info("Fleet member " + settings.memberId() + (status == Status.JOINING ? " joined" : " rejoined")
                        + " the fleet: " + grantAmong(renewed));
            }
            status = Status.LEASED;
            int previous = applied;
            int use = Math.max(settings.floor(), Math.min(renewed.granted(), renewed.target()));
            applyLocked(use, "granted " + renewed.granted() + ", target " + renewed.target() + " of "
                    + ofTotal(renewed) + " among " + renewed.members().size() + " members");
            return use < previous && renewed.granted() > use;
        } finally {
            state.unlock();
        }
    }

    /** A lease's grant, for the log: {@code granted 2 of budget 12 among 3 members}. */
    private static String grantAmong(Lease lease) {
        return "granted " + lease.granted() + " of " + ofTotal(lease) + " among " + lease.members().size() + " members";
    }

    /** What the targets split, for the log: the budget, or the total and the budget while they differ. */
    private static String ofTotal(Lease lease) {
        return lease.total() == lease.budget() ? "budget " + lease.budget()
                : "total " + lease.total() + " (budget " + lease.budget() + ")";
    }

    /** Falls to the floor once the lease is no longer valid by this member's reckoning. */
    void checkLease() {
        connectionsAllowed();
    }

    /**
     * The connections this member may hold now, by its own reckoning at this instant: its lease is checked first, and
     * if it ran out the fall to the floor is applied before this returns — so that a member resumed after a pause
     * opens no connection on a share it no longer holds, even before its lease check has run. Cheap enough to ask
     * before each connection is opened, not before each one is borrowed.
     */
    public int connectionsAllowed() {
        state.lock();
        try {
            if (leased() && nanoTime.getAsLong() - validUntilNanos >= 0) {
                status = Status.LAPSED;
                log.warn("Fleet member " + settings.memberId() + ": its lease expired unrenewed (last failure: "
                        + (lastFailure == null ? "none, the renewals did not run in time" : lastFailure) + ")", null);
                applyLocked(settings.floor(), "lease expired unrenewed");
            }
            // Before it starts the member holds its floor, as it will when it joins.
            return Math.max(applied, settings.floor());
        } finally {
            state.unlock();
        }
    }

    private void reportFenced(List<Lease.Fenced> fenced) {
        for (Lease.Fenced other : fenced) {
            if (!other.shareFreed()) {
                log.warn("Fleet member " + settings.memberId() + " ended the sessions of member " + other.memberId()
                        + ", whose lease had expired, but " + other.sessionsNotGone() + " of its "
                        + other.sessionsEnded() + " sessions were still open on the server when the renewal stopped"
                        + " waiting: its share stays withheld from every member until a later renewal finds them"
                        + " gone", null);
            } else if (other.sessionsEnded() > 0) {
                log.info("Fleet member " + settings.memberId() + " fenced member " + other.memberId()
                        + ", whose lease had expired: the server ended its " + other.sessionsEnded()
                        + " sessions before its share was granted again");
            }
            if (other.sessionsLeftOpen() > 0) {
                log.warn("Fleet member " + settings.memberId() + " could not end " + other.sessionsLeftOpen()
                        + " sessions of member " + other.memberId() + ", whose lease had expired: the coordinator's"
                        + " role may not signal them (it needs the privileges of their role, or of"
                        + " pg_signal_backend for a role that is no superuser); their connections stay open outside"
                        + " the budget until they close", null);
            }
        }
    }

    /** Each ignored row once, by member id: a row written again and again is not reported again. */
    private void reportIgnored(List<Lease.Ignored> ignored) {
        if (ignored.isEmpty()) {
            return;
        }
        state.lock();
        try {
            for (Lease.Ignored row : ignored) {
                if (ignoredReported.contains(row.memberId())) {
                    continue;
                }
                if (ignoredReported.size() >= IGNORED_REPORTED) {
                    if (!ignoredReportFull) {
                        ignoredReportFull = true;
                        log.warn("Fleet member " + settings.memberId() + " ignores more rows of the fleet's table"
                                + " than it reports; those after the first " + IGNORED_REPORTED
                                + " are not reported", null);
                    }
                    return;
                }
                ignoredReported.add(row.memberId());
                log.warn("Fleet member " + settings.memberId() + " ignores the row of member '"
                        + printable(row.memberId()) + "' in the fleet's table: " + printable(row.reason())
                        + "; it neither counts, nor is fenced, nor removed: only the fleet's members should write"
                        + " the table", null);
            }
        } finally {
            state.unlock();
        }
    }

    /** What another writer put in the table reaches the log bounded and on one line. */
    private static String printable(String text) {
        StringBuilder kept = new StringBuilder();
        text.codePoints().limit(200).forEach(c -> kept.appendCodePoint(c < 32 || c == 127 ? '?' : c));
        return text.length() > 200 ? kept + "…" : kept.toString();
    }

    private boolean leased() {
        return status == Status.LEASED;
    }

    /** Bounds every target by {@code connections}: shrinking in the targets' order, growing in reverse. */
    private void applyLocked(int connections, String why) {
        int previous = applied;
        if (connections == previous) {
            return;
        }
        boolean serves = true;
        if (connections < previous) {
            for (ShareTarget target : targets) {
                serves &= target.apply(connections);
            }
        } else {
            for (int i = targets.size() - 1; i >= 0; i--) {
                serves &= targets.get(i).apply(connections);
            }
        }
        applied = connections;
        canServe = serves;
        String change = "Fleet member " + settings.memberId() + ": " + previous + " → " + connections
                + " connections (" + why + ")";
        if (serves) {
            log.info(change);
        } else {
            log.warn(change + "; cannot serve: fewer connections than workloads, each gate keeps a B of 1", null);
        }
    }

    /** What the member may be using: its applied share, or more while work admitted under a larger one drains. */
    private int connectionsInUse() {
        return Math.max(appliedNow(), maxInUse());
    }

    /**
     * Waits while the targets hold more than {@code connections}. Returns true once they hold no more; false when
     * {@code until} passed first or the thread was interrupted (the interrupt flag stays set).
     */
    private boolean awaitInUseAtMost(int connections, long until) {
        while (maxInUse() > connections) {
            if (nanoTime.getAsLong() - until >= 0 || Thread.currentThread().isInterrupted()) {
                return false;
            }
            LockSupport.parkNanos(drainPollNanos);
        }
        return true;
    }

    private boolean isStopping() {
        state.lock();
        try {
            return stopping;
        } finally {
            state.unlock();
        }
    }

    private int appliedNow() {
        state.lock();
        try {
            return applied;
        } finally {
            state.unlock();
        }
    }

    private int maxInUse() {
        int inUse = 0;
        for (ShareTarget target : targets) {
            inUse = Math.max(inUse, target.connectionsInUse());
        }
        return inUse;
    }

    private boolean giveBack() {
        try {
            coordinator.leave(settings.memberId());
            return true;
        } catch (FleetUnavailableException unavailable) {
            log.warn(String.valueOf(unavailable.getMessage()), null);
            return false;
        }
    }

    private static void cancel(@Nullable ScheduledFuture<?> task) {
        if (task != null) {
            task.cancel(false);
        }
    }
}
