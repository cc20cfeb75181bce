package dev.dbbulkhead.gate;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.MisuseKind;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The gate of one workload, as its callers see it: admissions ({@link #acquire()}, {@link #acquireWithin}) handing out
 * {@link Permit}s, limits changed ({@link #resize}), places taken for tests ({@link #saturate()}), the shutdown and
 * what may be observed. It is the two semaphores of the design, kept as two counts in one word:
 *
 * <ul>
 *   <li><b>B execution permits</b> bound running operations, waited for during at most the queue wait: in
 *       arrival order ({@link QueueDiscipline#FIFO}), or, {@link QueueDiscipline#CODEL CoDel}, in arrival
 *       order until the queue stands, then newest first with the waiters past the target delay refused
 *       (docs/design.md tells why); with {@link AdmissionRules}, in the order of {@link WaitingWork}.</li>
 *   <li><b>B + Q admission permits</b> bound everything inside the gate, waiters included. Taken with an
 *       immediate try: none left means the operation is refused at once.</li>
 * </ul>
 *
 * <p>When nobody waits and fewer than B run, an admission takes both permits with one compare-and-set and a release
 * gives both back with one: that fast path and the release are the only admission work this class does itself. The
 * rest is in types of their own, each with one job:
 * <ul>
 *   <li>{@link EntryChecks}: the refusals of a misuse (a thread holding a permit, a thread forked from an admitted
 *       operation, an entry inside a transaction), read on each thread's {@link ThreadRecord};</li>
 *   <li>{@link GateEntry}: every admission the fast path does not finish — a deadline, a listener, a full gate, a
 *       borrow — with {@link RuledEntry} under admission rules, and {@link PermitHandout} for the wait and the
 *       permit, or the places given back;</li>
 *   <li>{@link AdmissionCounts} and its kinds, {@link CoDelCounts} and {@link ScheduledCounts}: the counts, and who
 *       runs next;</li>
 *   <li>{@link PoolPlaces}: the gate's places on the ledger of a {@link LendingPool} ({@link GateLending}), lent or
 *       borrowed; an operation of a lender waits for its ledger place as part of its wait to run, and a borrower's
 *       queued operations run on the places its lenders free;</li>
 *   <li>{@link GateReports}: what the {@link GateListener} is told, and the refusals thrown;</li>
 *   <li>{@link GateRelease}: where a {@link Permit} goes back to — it holds that, never the gate;</li>
 *   <li>{@link GateShutdown} and {@link GateResize}: the shutdown and its drain, and changes of B and Q.</li>
 * </ul>
 *
 * <p>A gate is not reentrant: a thread holding a permit of any gate may not acquire another one, nor may a thread
 * it started while holding it ({@link #acquire()}). Thread-safe. A gate {@linkplain #shutDown() shut down} admits
 * nothing more and {@linkplain #awaitDrained tells} when the operations admitted before have all ended.
 */
public final class AdmissionGate {

    private final String workload;
    private final AdmissionCounts counts;
    /**
     * Nobody to tell, no rule to apply, no pool: the one flag the fast path of {@link #acquire()} reads, so that a gate
     * with rules costs a gate without them nothing — the rules are applied on the slow path only.
     */
    private final boolean plain;
    private final GateReports reports;
    /** Its places on a lending pool's ledger: none read unless it lends or borrows. */
    private final PoolPlaces places;
    /** Every admission the fast path does not finish. */
    private final GateEntry slowPath;
    private final GateShutdown shutdown;
    private final GateRelease release;
    private final GateResize resizes;
    /** The one object through which B is set; see {@link #concurrencyOwner}. */
    private final AtomicReference<@Nullable Object> concurrencyOwner = new AtomicReference<>();

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
        // Chosen once: a FIFO gate runs AdmissionCounts' code alone, and never loads the others. A borrower's queued
        // operations may run on places its pool lends, handed to them one by one: they wait in the scheduler's order.
        if (!configured.isNone() || config.lending().borrow() > 0) {
            this.counts = ScheduledCounts.create(config, queueClock);
        } else {
            this.counts = config.queueDiscipline() == QueueDiscipline.CODEL
                    ? CoDelCounts.create(config, queueClock) : new AdmissionCounts(config);
        }
        this.reports = new GateReports(workload, Objects.requireNonNull(listener, "listener"),
                config.captureStackTrace());
        this.places = new PoolPlaces(config.lending());
        this.plain = !reports.timed() && configured.isNone() && !places.inPool();
        this.shutdown = new GateShutdown(counts, places);
        this.release = new GateRelease(workload, counts, places, shutdown, reports);
        this.slowPath = new GateEntry(config, counts, places, reports, shutdown, release);
        this.resizes = new GateResize(counts, places);
        // Last, once every field is written: the pool reads this gate's limits from now on.
        places.register(counts);
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
        return ThreadRecord.current().inAdmittedOperation();
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
        return ThreadRecord.current().permitRemainingNanos();
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
     *       {@link RejectionReason#SHED_BY_CRITICALITY SHED_BY_CRITICALITY} at once when only places held back for
     *       more critical work than the {@link OperationClass} bound to the thread (none bound is
     *       {@link Criticality#DEFAULT}) are left and no waiter comes after it; and, while it waits, when every place
     *       is taken and a newcomer that comes before it in the order of waiting work takes its place:
     *       {@link RejectionReason#PUSHED_OUT PUSHED_OUT} (more critical work, or a request in progress) or
     *       {@link RejectionReason#OVER_FAIR_SHARE OVER_FAIR_SHARE} (its key furthest over its share); nothing is
     *       held;</li>
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
        return admit(EntryChecks.refuseMisuse(workload));
    }

    /**
     * Admits one operation where a connection is taken — a borrow from a pool the gates stand in front of, which is
     * also where a transaction takes its connection — as {@link #acquire()} does, but with no refusal for an active
     * transaction: a transaction that began without its connection (one that takes it lazily, on its first statement)
     * is admitted there, still before any of its work. Returns and fails as {@link #acquire()}, that misuse apart; a
     * thread that already holds a permit or was started inside an admitted operation is refused as a reentry, so the
     * caller passes such a borrow as part of the operation admitted instead of asking here.
     *
     * <p>While the permit is held, {@link #currentThreadHoldsBorrowPlace()} says so: another borrow of the same thread
     * is nested in this operation (a {@code REQUIRES_NEW} transaction), and never waits for a second place.
     */
    public Permit acquireAtBorrow() {
        ThreadRecord held = EntryChecks.refuseHeldOrForked(workload);
        Permit permit = admit(held);
        held.holdsBorrowPlace();
        return permit;
    }

    /**
     * Whether the current thread holds a permit {@linkplain #acquireAtBorrow() taken where a connection is taken}:
     * one thread-local read.
     */
    public static boolean currentThreadHoldsBorrowPlace() {
        return ThreadRecord.current().holdsBorrowPlaceNow();
    }

    private Permit admit(ThreadRecord held) {
        if (held.hasRequestDeadline()) {
            return slowPath.admitBefore(held, System.nanoTime(), held.requestDeadlineNanos());
        }
        if (plain && !Thread.currentThread().isInterrupted() && counts.tryRunAtOnce()) {
            // The fast path: nobody to tell, nothing to time, no rule to apply, one compare-and-set taken.
            if (shutdown.refuses(held)) {
                // Read after the places were taken, as shutDown() reads the counts after setting it: either this
                // admission sees the shutdown, or the shutdown counts this operation as in flight.
                throw slowPath.refuseRunningWhileShuttingDown();
            }
            return held.hold(new Permit(release, held, 0L, 0L, false));
        }
        return slowPath.admit(held);
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
        ThreadRecord held = EntryChecks.refuseMisuse(workload);
        long deadlineNanos = entry + budgetNanos;
        if (held.hasRequestDeadline() && held.requestDeadlineNanos() - deadlineNanos < 0) {
            deadlineNanos = held.requestDeadlineNanos();
        }
        return slowPath.admitBefore(held, entry, deadlineNanos);
    }

    /** The hold times of this gate's recent operations with a deadline; for tests that set what operations need. */
    HoldTimes holdTimes() {
        return release.holdTimes();
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
        shutdown.shutDown();
    }

    /** Whether {@link #shutDown()} was called: the gate admits nothing more. */
    public boolean isShuttingDown() {
        return shutdown.isShuttingDown();
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
        release.abandoned().giveBackPlacesOfEndedOwners();
        return shutdown.await(timeout);
    }

    /** Whether the gate is shut down and holds no operation any more. For observation only. */
    public boolean isDrained() {
        return shutdown.isDrained();
    }

    /** Flows the order of a gate with rules knows right now, -1 for a gate without rules; for tests. */
    int flowsKnown() {
        return counts.flowsKnown();
    }

    /** Whether {@link #acquire()} may take its fast path: no listener and no admission rules. */
    boolean hasFastPath() {
        return plain;
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
        release.abandoned().giveBackPlacesOfEndedOwners();
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
     * part of how it waits, not of its limits. What sets B at run time calls it through the gate's
     * {@linkplain #concurrencyOwner owner} (the limit package's {@code ConcurrencyCeiling}), so that a cap on B holds.
     *
     * @throws IllegalArgumentException for a B below 1, a Q below 0, or a B + Q past {@link Integer#MAX_VALUE}
     */
    public void resize(int maxConcurrent, int maxQueued) {
        resizes.apply(limits -> limits.maxConcurrent(maxConcurrent).maxQueued(maxQueued));
    }

    /**
     * Changes B only, as {@link #resize(int, int)} does, keeping Q as it is at that moment: two operators changing
     * one limit each never undo each other's change. Called, as {@link #resize(int, int)} is, through the gate's
     * {@linkplain #concurrencyOwner owner}.
     *
     * @throws IllegalArgumentException for a B below 1, or a B + Q past {@link Integer#MAX_VALUE}
     */
    public void resizeConcurrent(int maxConcurrent) {
        resizes.apply(limits -> limits.maxConcurrent(maxConcurrent));
    }

    /**
     * Changes Q only, as {@link #resize(int, int)} does, keeping B as it is at that moment.
     *
     * @throws IllegalArgumentException for a Q below 0, or a B + Q past {@link Integer#MAX_VALUE}
     */
    public void resizeQueued(int maxQueued) {
        resizes.apply(limits -> limits.maxQueued(maxQueued));
    }

    /**
     * The one owner of this gate's B, the object every setter of B goes through: made by {@code make} on the first
     * call, the same object on every later one, so that two writers of B can never hold owners of their own. The gate
     * keeps it without knowing its type: the owner builds on the gate, not the other way round.
     *
     * @throws ClassCastException when the owner made first is not a {@code type}
     */
    public <T> T concurrencyOwner(Class<T> type, Function<? super AdmissionGate, ? extends T> make) {
        Object owner = concurrencyOwner.get();
        if (owner == null) {
            // Made outside any lock: two first callers may both make one, and only the first one kept is used.
            T made = Objects.requireNonNull(make.apply(this), "owner");
            Object kept = concurrencyOwner.compareAndExchange(null, made);
            owner = kept == null ? made : kept;
        }
        return type.cast(owner);
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
     * Operations refused since this gate was made that were later operations of a unit of work admitted once — a
     * request tracked by {@link RequestCommits#track()} with an operation admitted and ended before — whatever the
     * reason: the half-done requests a refusal wasted, which {@link AdmissionRules#inProgressFirst()} is there to
     * keep few.
     */
    public long refusedInProgress() {
        return reports.refusedInProgress();
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
