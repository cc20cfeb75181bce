package dev.dbbulkhead.gate;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.MisuseKind;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The gate of one workload: the two semaphores of the design, kept as two counts in one word.
 *
 * <ul>
 *   <li><b>B execution permits</b> bound running operations, waited for during at most the queue wait: in
 *       arrival order ({@link QueueDiscipline#FIFO}), or, {@link QueueDiscipline#CODEL CoDel}, in arrival
 *       order until the queue stands, then newest first with the waiters past the target delay refused
 *       (docs/design.md tells why).</li>
 *   <li><b>B + Q admission permits</b> bound everything inside the gate, waiters included. Taken with an
 *       immediate try: none left means the operation is refused at once.</li>
 * </ul>
 *
 * <p>When nobody waits and fewer than B run, an admission takes both permits with one compare-and-set and a release
 * gives both back with one ({@link AdmissionCounts}); only an operation that finds all B running queues.
 *
 * <p>With {@link GateLending}, the gate is one of the gates of a {@link LendingPool}: an operation that finds all its
 * own B running and nobody waiting may run on a place the pool's lenders leave unused, up to the borrow ceiling; an
 * operation of a lender, once it has its own execution permit, also takes its place on the pool's ledger, and waits
 * for it to come back if a borrowed operation holds it ({@link LendingPool} states the invariant). All of it is on the
 * slow path: a gate that neither lends nor borrows runs as it does without a pool.
 *
 * <p>A gate is not reentrant: a thread holding a permit of any gate may not acquire another one, nor may a thread
 * it started while holding it ({@link #acquire()}). Thread-safe.
 *
 * <p>A gate {@linkplain #shutDown() shut down} admits nothing more and {@linkplain #awaitDrained tells} when the
 * operations admitted before have all ended.
 */
public final class AdmissionGate {

    private final String workload;
    private final AdmissionCounts counts;
    private final AbandonedPermits abandoned = new AbandonedPermits();
    /** What this workload's operations with a deadline usually need: admissions with less left are refused. */
    private final HoldTimes holdTimes = new HoldTimes();
    private final long queueWaitNanos;
    private final boolean captureStackTrace;
    private final GateListener listener;
    private final boolean timed;
    /** The admission rules, or {@code null} when the configuration has none: then nothing here reads them. */
    private final @Nullable AdmissionRules rules;
    /**
     * Nobody to tell and no rule to apply: the one flag the fast path of {@link #acquire()} reads, so that a gate with
     * rules costs a gate without them nothing — the rules are applied on the slow path only.
     */
    private final boolean plain;
    /** Rules to apply or places to borrow: the slow path turns aside to their own methods, read as one flag. */
    private final boolean extended;
    /** Its places on a lending pool's ledger: none read unless it lends or borrows. */
    private final PoolPlaces places;
    private final GateResize resizes;
    /** Set once by {@link #shutDown()}: from then on nothing is admitted, and what was admitted before finishes. */
    private volatile boolean shuttingDown;
    private final GateDrain drain;

    /** A gate with the given limits that reports to nobody. */
    public AdmissionGate(String workload, GateConfig config) {
        this(workload, config, GateListener.NONE);
    }

    /**
     * @param workload the workload name; named in rejections, misuse reports and metrics
     * @param config   the limits and the queue discipline
     * @param listener told of every admission decision
     */
    public AdmissionGate(String workload, GateConfig config, GateListener listener) {
        this(workload, config, listener, System::nanoTime);
    }

    /**
     * A gate whose {@linkplain QueueDiscipline#CODEL CoDel} discipline reads {@code queueClock} (monotonic
     * nanoseconds) for its waiters' waits and its intervals: the seam through which tests drive them. The queue wait
     * and the budget are measured on it too, in that discipline; a FIFO gate never reads it.
     */
    AdmissionGate(String workload, GateConfig config, GateListener listener, LongSupplier queueClock) {
        if (workload == null || workload.isBlank()) {
            throw new IllegalArgumentException("workload name must not be blank, was '" + workload + "'");
        }
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(queueClock, "queueClock");
        this.workload = workload;
        AdmissionRules configured = config.admissionRules();
        // Chosen once: a FIFO gate runs AdmissionCounts' code alone, and never loads the others.
        if (!configured.isNone()) {
            this.counts = ScheduledCounts.create(config, queueClock);
        } else {
            this.counts = config.queueDiscipline() == QueueDiscipline.CODEL
                    ? CoDelCounts.create(config, queueClock) : new AdmissionCounts(config);
        }
        this.listener = Objects.requireNonNull(listener, "listener");
        this.timed = listener != GateListener.NONE;
        this.rules = configured.isNone() ? null : configured;
        this.places = new PoolPlaces(config.lending());
        this.resizes = new GateResize(counts, places);
        this.drain = new GateDrain(counts, places);
        this.plain = !timed && rules == null && !places.inPool();
        this.extended = rules != null || places.borrows();
        this.queueWaitNanos = config.queueWait().toNanos();
        this.captureStackTrace = config.captureStackTrace();
        // Last, once every field is written: the pool reads this gate's limits from now on.
        places.registerLender(this);
    }

    /**
     * Whether the current thread is inside an admitted operation: it holds a permit of some gate, or it was started by
     * a thread holding one (work forked from that operation, as {@link #acquire()} describes) and that operation is
     * still in progress. Whatever the current thread does with a connection now is bounded by a gate; a connection it
     * borrows otherwise is outside every gate.
     *
     * <p>For a thread that holds a permit this is one thread-local read and one field read, so a check on every
     * connection borrowed costs admitted work next to nothing. A forked thread whose operation has ended is settled
     * by the call: from then on it enters a gate as an operation of its own, as it would on its next admission.
     */
    public static boolean isCurrentThreadAdmitted() {
        return EntryChecks.currentThreadRecord().inAdmittedOperation();
    }

    /**
     * What is left of the deadline of the permit the current thread holds — the budget it was admitted within,
     * {@link #acquireWithin} or a {@link RequestDeadline}'s — for the stages of its operation that wait on their own,
     * such as a pool's wait for a connection. Returns in one of these ways:
     * <ul>
     *   <li>the nanoseconds left, zero or negative once the deadline is spent, while the thread holds a permit that
     *       has a deadline;</li>
     *   <li>{@link Permit#NO_DEADLINE} when it holds a permit without one, holds none, or was started inside an
     *       admitted operation (that thread has no permit of its own).</li>
     * </ul>
     * Without a deadline this costs a thread-local read and one field read; only with one is the clock read.
     */
    public static long currentPermitRemainingNanos() {
        return EntryChecks.currentThreadRecord().permitRemainingNanos();
    }

    /**
     * Admits one operation, waiting at most the queue wait for an execution permit. With a {@link RequestDeadline}
     * bound to the thread, the operation is admitted within what is left of it, as {@link #acquireWithin} admits
     * within a budget: refused at once with {@link RejectionReason#QUEUE_TIMEOUT QUEUE_TIMEOUT}, before any place is
     * taken, when it is spent; otherwise waiting at most the smaller of the queue wait and the time left, and
     * handing out a permit that {@linkplain Permit#remainingNanos() knows what is left}.
     *
     * <p>Returns in exactly one of these ways:
     * <ul>
     *   <li>with a {@link Permit} holding both permits, to be closed by this thread when the operation
     *       (connection cleanup included) has ended;</li>
     *   <li>{@link BulkheadRejectedException} {@link RejectionReason#ADMISSION_FULL ADMISSION_FULL} at once
     *       when all B + Q admission permits are taken and the thread is not interrupted; nothing is held;</li>
     *   <li>with {@link AdmissionRules}, {@link BulkheadRejectedException}
     *       {@link RejectionReason#SHED_BY_CRITICALITY SHED_BY_CRITICALITY} at once when places are left but only
     *       places held back for more critical work than the {@link OperationClass} bound to the thread (none bound
     *       is {@link Criticality#DEFAULT}), and {@link RejectionReason#OVER_FAIR_SHARE OVER_FAIR_SHARE} at once when
     *       the bound key already holds its fair share while other keys ask for theirs; nothing is held;</li>
     *   <li>{@link BulkheadRejectedException} {@link RejectionReason#QUEUE_TIMEOUT QUEUE_TIMEOUT} when no
     *       execution permit became free within the queue wait (a zero wait means none is waited for, but
     *       earlier waiters still go first); the admission permit has been given back;</li>
     *   <li>under the {@linkplain QueueDiscipline#CODEL CoDel discipline}, also {@link BulkheadRejectedException}
     *       {@link RejectionReason#QUEUE_TIMEOUT QUEUE_TIMEOUT} before the queue wait ran out, when the queue stands
     *       and this caller has waited more than the target delay (shed: the listener hears
     *       {@link GateListener#onShed} first, and {@link #shedCount()} counts it); the admission permit has been given
     *       back. Its wait may also end sooner than under FIFO with a permit, served newest first while the queue
     *       stands. An interrupt that comes after a permit was handed to the waiter, but before it saw it, leaves the
     *       permit held and the interrupt flag set, as an interrupt right after the acquisition does;</li>
     *   <li>{@link BulkheadRejectedException} {@link RejectionReason#INTERRUPTED INTERRUPTED} when the thread
     *       is interrupted on entry, whatever the state of the gate (the interrupt is seen before any place is
     *       taken, so it never costs another caller a place), or while waiting (the admission permit has then been
     *       given back); either way the thread's interrupt status is set again;</li>
     *   <li>{@link BulkheadRejectedException} {@link RejectionReason#SHUTTING_DOWN SHUTTING_DOWN} at once once the
     *       gate is {@linkplain #shutDown() shut down} (unless the thread is interrupted, which is refused as such);
     *       nothing is held;</li>
     *   <li>{@link BulkheadMisuseException} {@link MisuseKind#REENTRANT_ENTRY REENTRANT_ENTRY} when this thread
     *       already holds a permit of any gate, or was started inside an admitted operation that still holds its
     *       permit; {@link MisuseKind#ACTIVE_TRANSACTION ACTIVE_TRANSACTION} when an {@link AmbientTransactionProbe}
     *       reports an active transaction; nothing is held.</li>
     * </ul>
     *
     * <p>Work forked from an admitted operation is part of it, not an operation of its own: a thread started while
     * its creator holds a permit ({@code Thread.start}, {@code Thread.ofVirtual()}, a thread-per-task executor, a
     * {@code StructuredTaskScope} fork — any thread that inherits inheritable thread-locals, as threads do by default)
     * is refused as a reentry while that admission lasts, and enters as an operation of its own once it has ended.
     * Entering from it could only wait for a place its own parent holds, or take a second connection while the
     * first is held. Work handed to a thread that already existed (a pooled executor, the common pool of
     * {@code CompletableFuture.supplyAsync}) cannot be told apart and enters as an operation of its own: keep the
     * database work of an operation on its admitted thread.
     *
     * @return the held permits
     */
    public Permit acquire() {
        HeldGate held = EntryChecks.refuseMisuse(this);
        if (held.hasRequestDeadline()) {
            return admitBefore(held, System.nanoTime(), held.requestDeadlineNanos());
        }
        if (plain && !Thread.currentThread().isInterrupted() && counts.tryRunAtOnce()) {
            // The fast path: nobody to tell, nothing to time, no rule to apply, one compare-and-set taken.
            if (shuttingDown) {
                // Read after the places were taken, as shutDown() reads the counts after setting it: either this
                // admission sees the shutdown, or the shutdown counts this operation as in flight.
                throw refuseAdmittedWhileShuttingDown(true, null);
            }
            return held.hold(this, new Permit(this, held, 0L, 0L, false));
        }
        return admitAndWait(held, queueWaitNanos, 0L, false);
    }

    /**
     * Admits one operation within a budget that starts now and covers the whole operation: the wait for an
     * execution permit is at most the smaller of the queue wait and the budget, and the returned permit
     * {@linkplain Permit#remainingNanos() knows what is left} for the transaction.
     *
     * <p>Returns the same ways as {@link #acquire()}, and one more: {@link BulkheadRejectedException}
     * {@link RejectionReason#QUEUE_TIMEOUT QUEUE_TIMEOUT} when the budget was spent by the time an execution
     * permit was had; both permits have then been given back, and the operation never reaches the pool.
     *
     * <p>With a {@link RequestDeadline} bound to the thread, the budget ends at the earlier of the two.
     *
     * @param budget the whole operation's budget, positive
     * @throws IllegalArgumentException for a zero, negative or unrepresentable budget
     */
    public Permit acquireWithin(Duration budget) {
        long budgetNanos = GateRanges.requireBudget(budget).toNanos();
        long entry = System.nanoTime();
        HeldGate held = EntryChecks.refuseMisuse(this);
        long deadlineNanos = entry + budgetNanos;
        if (held.hasRequestDeadline() && held.requestDeadlineNanos() - deadlineNanos < 0) {
            deadlineNanos = held.requestDeadlineNanos();
        }
        return admitBefore(held, entry, deadlineNanos);
    }

    /**
     * Admits an operation that must have its execution permit before {@code deadlineNanos}: refused at once, before
     * any place is taken, with {@link RejectionReason#INSUFFICIENT_TIME} when less is left than the workload's recent
     * operations with a deadline held their permits (their median), or nothing at all (unless the thread is
     * interrupted, which is refused as such); otherwise it waits at most the smaller of the queue wait and the time
     * left.
     */
    private Permit admitBefore(HeldGate held, long entry, long deadlineNanos) {
        refuseIfShuttingDown();
        long leftNanos = deadlineNanos - entry;
        // Nothing left, or less than the workload's operations usually take: it could only time out in the database.
        if (leftNanos < Math.max(1L, holdTimes.medianNanos()) && !Thread.currentThread().isInterrupted()) {
            throw rejected(RejectionReason.INSUFFICIENT_TIME, GateListener.NEVER_ADMITTED);
        }
        return admitAndWait(held, Math.min(queueWaitNanos, leftNanos), deadlineNanos, true);
    }

    /** The hold times of this gate's recent operations with a deadline; for tests that set what operations need. */
    HoldTimes holdTimes() {
        return holdTimes;
    }

    /** The current thread's record of the gate it holds and of the request deadline bound to it. */
    static HeldGate currentThreadRecord() {
        return EntryChecks.currentThreadRecord();
    }

    /**
     * Every acquisition the fast path of {@link #acquire()} does not finish: kept apart so that {@code acquire()}
     * stays small enough to be inlined into its caller.
     */
    private Permit admitAndWait(HeldGate held, long maxWaitNanos, long deadlineNanos, boolean hasDeadline) {
        if (Thread.currentThread().isInterrupted()) {
            // Checked before the counts are touched, as Semaphore does: an interrupted caller never holds, even for
            // a moment, a place that a caller arriving meanwhile would then be refused for.
            throw rejected(RejectionReason.INTERRUPTED, GateListener.NEVER_ADMITTED);
        }
        refuseIfShuttingDown();
        boolean clocked = timed || hasDeadline;
        long waitStart = clocked ? System.nanoTime() : 0L;
        if (extended) {
            // Rules or borrowing: paths of their own, so that a gate with neither runs, and refuses, as before them.
            return rules != null ? admitUnderRules(held, rules, waitStart, maxWaitNanos, deadlineNanos, hasDeadline)
                    : admitMayBorrow(held, waitStart, maxWaitNanos, deadlineNanos, hasDeadline);
        }
        boolean running = runAtOnce();
        if (!running && !counts.tryJoinQueue()) {
            throw rejected(RejectionReason.ADMISSION_FULL, GateListener.NEVER_ADMITTED);
        }
        return waitToRun(held, running, null, waitStart, maxWaitNanos, deadlineNanos, hasDeadline);
    }

    /**
     * {@link #admitAndWait} for a gate that may borrow: with its own places all running and nobody waiting, it runs on
     * a place the pool's lenders leave unused, up to its ceiling; refused {@link RejectionReason#BORROW_REFUSED} when
     * below its ceiling no such place was free, else as a gate without a pool.
     */
    private Permit admitMayBorrow(HeldGate held, long waitStart, long maxWaitNanos, long deadlineNanos,
                                  boolean hasDeadline) {
        boolean running = runAtOnce();
        boolean borrowRefused = false;
        if (!running && nobodyWaits()) {
            if (places.tryTakeBorrowed()) {
                return borrowed(held, waitStart, deadlineNanos, hasDeadline);
            }
            borrowRefused = places.belowCeiling();
        }
        if (!running && !counts.tryJoinQueue()) {
            throw rejected(borrowRefused ? RejectionReason.BORROW_REFUSED : RejectionReason.ADMISSION_FULL,
                    GateListener.NEVER_ADMITTED);
        }
        return waitToRun(held, running, null, waitStart, maxWaitNanos, deadlineNanos, hasDeadline);
    }

    /** Takes an execution permit at once if one is free, after giving back the places of owners that ended. */
    private boolean runAtOnce() {
        if (counts.tryRunAtOnce()) {
            return true;
        }
        // A permit whose owner thread ended without closing it held a place; it is back: ask again.
        return abandoned.giveBackPlacesOfEndedOwners() && counts.tryRunAtOnce();
    }

    /** Whether no admitted operation waits for an execution permit: a borrow would not pass one. */
    private boolean nobodyWaits() {
        long snapshot = counts.snapshot();
        return AdmissionCounts.admitted(snapshot) == AdmissionCounts.running(snapshot);
    }

    /** Hands out the permit of an operation running on a borrowed place, which its release gives back. */
    private Permit borrowed(HeldGate held, long waitStart, long deadlineNanos, boolean hasDeadline) {
        if (shuttingDown) {
            places.giveBackBorrowed();
            signalIfDrained();
            throw rejected(RejectionReason.SHUTTING_DOWN, GateListener.NEVER_ADMITTED);
        }
        Permit fresh = new Permit(this, held, waitStart, deadlineNanos, hasDeadline, PoolPlaces.BORROWED_PLACE);
        Permit permit = hasDeadline ? held.holdUntil(this, fresh, deadlineNanos) : held.hold(this, fresh);
        listener.onAdmitted(workload, 0L);
        return permit;
    }

    /**
     * {@link #admitAndWait} for a gate with rules: runs at once when a place is free and nobody waits, as without
     * rules, within the places its criticality may take; may borrow, as {@link #admitMayBorrow} does; otherwise waits
     * in the order of {@link WaitingWork} — criticality, a request in progress, its flow's weighted use, arrival. With
     * every place taken (or every place its criticality may take), it takes the place of the last waiter of that order
     * if it comes before it, and is refused otherwise: {@link RejectionReason#SHED_BY_CRITICALITY} when only places
     * held back for more critical work were left, else as a gate without rules. Nobody is refused for a share while a
     * place is free.
     */
    private Permit admitUnderRules(HeldGate held, AdmissionRules rules, long waitStart, long maxWaitNanos,
                                   long deadlineNanos, boolean hasDeadline) {
        OperationClass operation = held.operationClass();
        Criticality criticality = operation == null ? Criticality.DEFAULT : operation.criticality();
        boolean borrowRefused = false;
        if (places.borrows() && ownPlacesAllRunningAndNobodyWaits()) {
            if (places.tryTakeBorrowed()) {
                return borrowed(held, waitStart, deadlineNanos, hasDeadline);
            }
            borrowRefused = places.belowCeiling();
        }
        AdmissionCounts.Entry entry = counts.tryEnter(rules, criticality);
        if (!entry.admitted() && abandoned.giveBackPlacesOfEndedOwners()) {
            // A permit whose owner thread ended without closing it held a place: ask again.
            entry = counts.tryEnter(rules, criticality);
        }
        if (entry == AdmissionCounts.Entry.RUNNING) {
            return waitToRun(held, true, null, waitStart, maxWaitNanos, deadlineNanos, hasDeadline);
        }
        ScheduledCounts scheduled = (ScheduledCounts) counts;
        WaitingWork.Ticket ticket = ticketOf(held, operation, criticality, rules);
        if (entry == AdmissionCounts.Entry.WAITING) {
            return waitToRun(held, false, scheduled.enqueue(ticket), waitStart, maxWaitNanos, deadlineNanos,
                    hasDeadline);
        }
        ScheduledCounts.Queued displacing = scheduled.displace(ticket);
        if (displacing == null) {
            throw rejected(entry == AdmissionCounts.Entry.RESERVED ? RejectionReason.SHED_BY_CRITICALITY
                    : borrowRefused ? RejectionReason.BORROW_REFUSED : RejectionReason.ADMISSION_FULL,
                    GateListener.NEVER_ADMITTED);
        }
        return waitToRun(held, false, displacing, waitStart, maxWaitNanos, deadlineNanos, hasDeadline);
    }

    /**
     * What the operation waits as: its criticality, whether its request is in progress (it committed an operation
     * already, when the rules serve those first), and its flow — its key under fair shares, the rules' keyless key
     * for an operation without one, and one flow for every operation without fair shares.
     */
    private static WaitingWork.Ticket ticketOf(HeldGate held, @Nullable OperationClass operation,
                                               Criticality criticality, AdmissionRules rules) {
        boolean inProgress = rules.inProgressFirst() && held.requestCommits() > 0;
        String key = operation == null ? null : operation.keyOrNull();
        String flow = !rules.fairShares() || key == null ? rules.keylessKey() : key;
        return new WaitingWork.Ticket(criticality, inProgress, flow, rules.weightOf(flow));
    }

    /** Whether all of this gate's own B run and none of its operations waits: only then may it borrow. */
    private boolean ownPlacesAllRunningAndNobodyWaits() {
        long snapshot = counts.snapshot();
        int running = AdmissionCounts.running(snapshot);
        return AdmissionCounts.admitted(snapshot) == running && running >= counts.limits().maxConcurrent();
    }

    /**
     * For an admitted operation: waits for its execution permit if it has none yet, then hands out the permit or
     * gives back what it took. Kept apart so that {@link #admitAndWait} stays small enough to be inlined, and an
     * immediate refusal is thrown and caught in one compiled frame.
     */
    private Permit waitToRun(HeldGate held, boolean runningAlready, ScheduledCounts.@Nullable Queued queued,
                             long waitStart, long maxWaitNanos, long deadlineNanos, boolean hasDeadline) {
        if (shuttingDown) {
            // Admitted as the gate began to shut down: it leaves before it waits, as if it had never entered.
            throw refuseAdmittedWhileShuttingDown(runningAlready, queued);
        }
        boolean clocked = timed || hasDeadline;
        boolean running = runningAlready;
        // Admitted and not running; false once its place went to another (displaced), when it has nothing to give.
        boolean holdsQueuePlace = !running;
        boolean handedOut = false;
        boolean shed = false;
        RejectionReason refusal = RejectionReason.QUEUE_TIMEOUT;
        long waitedNanos = 0L;
        try {
            if (!running) {
                if (timed) {
                    listener.onWaitStarted(workload);
                }
                AdmissionCounts.WaitEnd end = queued == null ? counts.awaitRunning(maxWaitNanos)
                        : ((ScheduledCounts) counts).await(queued, maxWaitNanos);
                running = end == AdmissionCounts.WaitEnd.RUNNING;
                holdsQueuePlace = !running && !displaced(end);
                shed = end == AdmissionCounts.WaitEnd.SHED;
                if (displaced(end)) {
                    refusal = end == AdmissionCounts.WaitEnd.DISPLACED_BY_PRIORITY
                            ? RejectionReason.SHED_BY_CRITICALITY : RejectionReason.OVER_FAIR_SHARE;
                }
            }
            long now = clocked ? System.nanoTime() : 0L;
            waitedNanos = now - waitStart;
            if (running && hasDeadline && now - deadlineNanos < 0 && deadlineNanos - now < holdTimes.medianNanos()) {
                // The wait left some time, less than an operation usually needs: not overload, too late to start.
                refusal = RejectionReason.INSUFFICIENT_TIME;
            } else if (running && !(hasDeadline && now - deadlineNanos >= 0)) {
                boolean lends = places.lends();
                boolean placed = !lends || places.takeOwn(hasDeadline, deadlineNanos);
                if (lends && clocked) {
                    // A wait for the ledger place is a wait to run: the hold starts once the place is had.
                    now = System.nanoTime();
                    waitedNanos = now - waitStart;
                }
                if (placed) {
                    Permit fresh = new Permit(this, held, now, deadlineNanos, hasDeadline,
                            places.ownPermitPlace());
                    Permit permit = hasDeadline ? held.holdUntil(this, fresh, deadlineNanos) : held.hold(this, fresh);
                    listener.onAdmitted(workload, waitedNanos);
                    handedOut = true;
                    return permit;
                }
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            refusal = RejectionReason.INTERRUPTED;
            waitedNanos = clocked ? System.nanoTime() - waitStart : 0L;
        } finally {
            if (!handedOut) {
                // Whichever way this call is leaving without a permit, give back what it took.
                held.clear();
                givePlacesBack(running, holdsQueuePlace);
            }
        }
        // Told only now that the places are given back: a slow listener keeps none of them from other callers.
        if (shed && timed) {
            listener.onShed(workload, waitedNanos);
        }
        throw rejected(refusal, waitedNanos);
    }

    /**
     * Called once per permit ({@link Permit#close()} sees to it): by its owner thread, or by another thread once the
     * owner has ended without closing it.
     */
    void release(Permit permit) {
        HeldGate held = permit.holder();
        held.clear();
        byte pooled = permit.pooled();
        if (pooled == PoolPlaces.BORROWED_PLACE) {
            places.giveBackBorrowed();
        } else {
            counts.finishRunning();
            if (pooled == PoolPlaces.OWN_PLACE) {
                places.giveBackOwn();
            }
        }
        signalIfDrained();
        boolean hadDeadline = permit.hasDeadline();
        long heldNanos = timed || hadDeadline ? System.nanoTime() - permit.admittedAtNanos() : 0L;
        if (hadDeadline) {
            held.forgetPermitDeadline();
            holdTimes.record(heldNanos);
        }
        if (timed) {
            permit.reportReleased(listener, heldNanos);
        }
    }

    /** Refuses an admission that has not taken a place yet, once the gate is shutting down. */
    private void refuseIfShuttingDown() {
        if (shuttingDown) {
            throw rejected(RejectionReason.SHUTTING_DOWN, GateListener.NEVER_ADMITTED);
        }
    }

    /**
     * Gives back the places an admission took (an execution permit when {@code running}, else a queue place, and its
     * key's place) when it found the gate shutting down right after taking them, and refuses it. Given back by the
     * admitting thread, once, before it was handed a permit or told anyone it was admitted.
     */
    private BulkheadRejectedException refuseAdmittedWhileShuttingDown(boolean running,
                                                                      ScheduledCounts.@Nullable Queued queued) {
        if (queued == null) {
            givePlacesBack(running, !running);
        } else {
            // Queued already: taken out, unless a place or a displacement came to it meanwhile.
            AdmissionCounts.WaitEnd end = ((ScheduledCounts) counts).withdraw(queued);
            givePlacesBack(end == AdmissionCounts.WaitEnd.RUNNING, end == AdmissionCounts.WaitEnd.TIMED_OUT);
        }
        return rejected(RejectionReason.SHUTTING_DOWN, GateListener.NEVER_ADMITTED);
    }

    private static boolean displaced(AdmissionCounts.WaitEnd end) {
        return end == AdmissionCounts.WaitEnd.DISPLACED_BY_PRIORITY || end == AdmissionCounts.WaitEnd.DISPLACED_BY_SHARE;
    }

    /**
     * Gives back the places of an admission that leaves without a permit: its execution permit when {@code running},
     * else its queue place, and its key's place; then opens {@link #drained} if that emptied a gate shutting down.
     */
    private void givePlacesBack(boolean running, boolean queuePlace) {
        if (running) {
            counts.finishRunning();
        } else if (queuePlace) {
            counts.leaveQueue();
        }
        signalIfDrained();
    }

    /**
     * Opens the drain when the gate is shutting down and holds nothing. Read after the places were given back, as
     * {@link #shutDown()} reads them after setting its flag: the last operation out, or the shutdown, opens it.
     */
    private void signalIfDrained() {
        if (shuttingDown) {
            drain.signalIfEmpty();
        }
    }

    /**
     * Stops admitting, for good: from now on every admission is refused at once with
     * {@link RejectionReason#SHUTTING_DOWN SHUTTING_DOWN}, nothing taken. The operations admitted before finish as
     * usual: those running, and those queued, which still run when an execution permit comes to them within their
     * queue wait. Never waits; calling it again does nothing more. {@link #awaitDrained} tells when they have ended.
     *
     * <p>An admission racing with the call is either refused, or counted among the operations in flight that the
     * drain waits for: none slips in unseen.
     */
    public void shutDown() {
        shuttingDown = true;
        signalIfDrained();
    }

    /** Whether {@link #shutDown()} was called: the gate admits nothing more. */
    public boolean isShuttingDown() {
        return shuttingDown;
    }

    /**
     * Waits at most {@code timeout} until the gate, {@linkplain #shutDown() shut down}, holds no operation: none
     * runs, none waits for an execution permit, none runs on a borrowed place. Returns at once when that is already
     * so. Before {@link #shutDown()}, it waits for the shutdown too.
     *
     * @return whether the gate drained within the timeout
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public boolean awaitDrained(Duration timeout) throws InterruptedException {
        // A permit whose owner thread ended without closing it would hold its place for ever: give it back first.
        abandoned.giveBackPlacesOfEndedOwners();
        return drain.await(timeout);
    }

    /** Whether the gate is shut down and holds no operation any more. For observation only. */
    public boolean isDrained() {
        return drain.isDrained();
    }

    /** Flows the order of a gate with rules knows right now, -1 for a gate without rules; for tests. */
    int flowsKnown() {
        return counts instanceof ScheduledCounts scheduled ? scheduled.flowsKnown() : -1;
    }

    /** Whether {@link #acquire()} may take its fast path: no listener and no admission rules. */
    boolean hasFastPath() {
        return plain;
    }

    /** Whether a listener is told of this gate's decisions: without one, nothing on its path takes a time stamp. */
    boolean isListenedTo() {
        return timed;
    }

    /**
     * Takes every place of this gate — its B execution permits, its Q queue places and, for a borrower, its ceiling of
     * borrowed places (no place of its pool's ledger: what it would borrow stays free for the others) — with no
     * operation behind them, until the returned saturation is closed: meanwhile every admission is refused at once with
     * {@link RejectionReason#ADMISSION_FULL ADMISSION_FULL}, as under an overload that fills the gate. For tests of what
     * an application does with refusals (its 503 page, its retries, its fallback) against the real gate.
     *
     * <p>Taken in one step from an idle gate, so that a saturation never waits and never holds less than every place.
     * It holds no thread, no connection and no permit of the calling thread, which stays free to call gated code and be
     * refused; the listener hears nothing, since nothing is admitted or released, while {@link #active()} and
     * {@link #waiting()} show the places taken. A resize meanwhile (a grow from the endpoint, the adaptive limit or a
     * fleet share) opens room as it would under load: only the places that existed when it was taken are held.
     *
     * @return the places taken, to be closed (from any thread) to give them back
     * @throws IllegalStateException when the gate is not idle: an operation runs or waits in it
     */
    public GateSaturation saturate() {
        // Permits whose owner ended unclosed would otherwise count as a busy gate.
        abandoned.giveBackPlacesOfEndedOwners();
        GateConfig limits = counts.limits();
        // A borrower's ceiling is taken too, before its own places, so that no borrow slips past the saturation.
        boolean ceilingTaken = places.tryTakeCeiling();
        if (!ceilingTaken || !counts.tryTakeEveryPlace(limits)) {
            if (ceilingTaken) {
                places.giveBackCeiling();
            }
            throw new IllegalStateException("Bulkhead '" + workload + "' cannot be saturated while it is in use ("
                    + active() + " running, " + waiting() + " waiting): a saturation takes every place of an idle gate");
        }
        return new GateSaturation(workload, limits.maxConcurrent(), limits.maxQueued(), () -> {
            counts.giveBackPlaces(limits.maxConcurrent(), limits.maxQueued());
            places.giveBackCeiling();
        });
    }

    /**
     * Changes B and Q without blocking. Growing takes effect at once (waiters are handed the new room). Shrinking
     * never waits and never disturbs running work: new admissions obey the new limits while the operations already
     * inside drain. The queue discipline, its target delay and its interval stay as the gate was built: they are
     * part of how it waits, not of its limits.
     *
     * @throws IllegalArgumentException for a B below 1, a Q below 0, or a B + Q past {@link Integer#MAX_VALUE}
     */
    public void resize(int maxConcurrent, int maxQueued) {
        resize(limits -> limits.maxConcurrent(maxConcurrent).maxQueued(maxQueued));
    }

    /**
     * Changes B only, as {@link #resize(int, int)} does, keeping Q as it is at that moment: two operators changing
     * one limit each never undo each other's change.
     *
     * @throws IllegalArgumentException for a B below 1, or a B + Q past {@link Integer#MAX_VALUE}
     */
    public void resizeConcurrent(int maxConcurrent) {
        resize(limits -> limits.maxConcurrent(maxConcurrent));
    }

    /**
     * Changes Q only, as {@link #resize(int, int)} does, keeping B as it is at that moment.
     *
     * @throws IllegalArgumentException for a Q below 0, or a B + Q past {@link Integer#MAX_VALUE}
     */
    public void resizeQueued(int maxQueued) {
        resize(limits -> limits.maxQueued(maxQueued));
    }

    private void resize(UnaryOperator<GateConfig.Builder> change) {
        resizes.apply(change);
    }

    /** Tells the listener of a refusal, with nothing held by the refused caller, and builds the exception. */
    private BulkheadRejectedException rejected(RejectionReason reason, long queueWaitNanos) {
        if (timed) {
            listener.onRejected(workload, reason, queueWaitNanos);
        }
        int committedBefore = Math.max(0, currentThreadRecord().requestCommits());
        return new BulkheadRejectedException(workload, reason, captureStackTrace, committedBefore);
    }

    /**
     * Keeps {@code permit}, which another thread tried to close while its owner was alive, until it is given back:
     * by its owner (closing it, or entering a bulkhead again), or by this gate once the owner has ended.
     */
    void abandon(Permit permit) {
        abandoned.add(permit);
    }

    /** The workload name. */
    public String workload() {
        return workload;
    }

    /** The limits now in force (they change with {@link #resize}). */
    public GateConfig config() {
        return counts.limits();
    }

    /**
     * Execution permits free right now; negative for a while after a shrink. For observation only: the
     * value may be stale before it is returned, so never decide to enter on it.
     */
    public int availableExecutionPermits() {
        long snapshot = counts.snapshot();
        return counts.limits().maxConcurrent() - AdmissionCounts.running(snapshot);
    }

    /** Admission permits free right now; negative for a while after a shrink. For observation only. */
    public int availableAdmissionPermits() {
        long snapshot = counts.snapshot();
        return counts.limits().maxAdmitted() - AdmissionCounts.admitted(snapshot);
    }

    /**
     * Both counts at one instant, for checks that need them together (take them apart with
     * {@link AdmissionCounts#running} and {@link AdmissionCounts#admitted}). For observation only.
     */
    long countsSnapshot() {
        return counts.snapshot();
    }

    /** Operations running right now, on borrowed places too ({@link #borrowed()}). For observation only. */
    public int active() {
        return AdmissionCounts.running(counts.snapshot()) + places.borrowed();
    }

    /**
     * Operations running on places borrowed from the other gates of the pool right now; always 0 for a gate that does
     * not borrow. For observation only.
     */
    public int borrowed() {
        return places.borrowed();
    }

    /** Operations admitted and still waiting for an execution permit. For observation only; never below 0. */
    public int waiting() {
        // Both counts come from one word read at one instant, so a waiter is never counted twice or not at all.
        long snapshot = counts.snapshot();
        return AdmissionCounts.admitted(snapshot) - AdmissionCounts.running(snapshot);
    }

    /**
     * Threads parked waiting for an execution permit right now: an estimate for observation only. An
     * admitted operation may not have begun to wait yet, so this can trail {@link #waiting()}.
     */
    public int queueLength() {
        return counts.parkedWaiters();
    }

    /**
     * Whether the {@linkplain QueueDiscipline#CODEL CoDel discipline} judges the queue standing right now
     * (serving the newest first and shedding); always false under {@link QueueDiscipline#FIFO}. For observation only.
     */
    public boolean queueStanding() {
        return counts.standing();
    }

    /**
     * Waiters refused by the CoDel discipline since the gate was built, before their queue wait ran out (each was
     * refused with {@link RejectionReason#QUEUE_TIMEOUT}); always 0 under {@link QueueDiscipline#FIFO}. For
     * observation only.
     */
    public long shedCount() {
        return counts.shedCount();
    }

    @Override
    public String toString() {
        return "AdmissionGate[" + workload + ", " + counts.limits() + ", " + counts + "]";
    }
}
