package dev.dbbulkhead.gate;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * One thread's record: the workload whose permit it holds, if any — what the reentry check reads — and what is bound
 * to the unit of work it serves (a request's deadline, its commits, its workload, its operation class). One per
 * thread, looked up once per admission ({@link #current()}); its release reads it through the permit.
 *
 * <p>Written only by its own thread, so plain fields suffice on the admission and release paths. Other threads read
 * it in two cases, neither of them on those paths:
 * <ul>
 *   <li>a thread started by this one while it held a permit (work forked from the admitted operation) asks whether
 *       that admission is still in progress — its own record names this one as its {@code origin};</li>
 *   <li>a thread that tried to close this thread's permit leaves it here as {@code abandoned}, for this thread to
 *       give back when it next enters a bulkhead.</li>
 * </ul>
 */
final class ThreadRecord {

    /**
     * The record of each thread. A mutable holder per thread, so that an admission looks the thread-local up once and
     * its release not at all (the permit keeps the record), and no admission allocates a map entry the collector must
     * later process.
     *
     * <p>Inherited: a thread started while its creator holds a permit is work forked from that admitted operation,
     * and is refused entry while the operation lasts (see {@link AdmissionGate#acquire()}).
     */
    private static final ThreadLocal<ThreadRecord> RECORDS = new InheritableThreadLocal<>() {
        @Override
        protected ThreadRecord initialValue() {
            return new ThreadRecord();
        }

        @Override
        protected ThreadRecord childValue(ThreadRecord creator) {
            return creator.forChild();
        }
    };

    /** Cleared with release semantics, so that a forked thread reading {@link #originStillAdmitted()} sees it. */
    private static final VarHandle HELD_WORKLOAD;

    static {
        try {
            HELD_WORKLOAD = MethodHandles.lookup().findVarHandle(ThreadRecord.class, "heldWorkload", String.class);
        } catch (ReflectiveOperationException impossible) {
            throw new ExceptionInInitializerError(impossible);
        }
    }

    /**
     * The workload whose permit this thread holds; or, for a thread forked from an admitted operation and not yet
     * {@linkplain #settleFork() settled}, the one its origin held when it was started — so that the admission fast
     * path, which reads only this field, turns aside to the full check in both cases.
     */
    private @Nullable String heldWorkload;
    /** How many admissions this thread has had: tells a forked thread which of them it was started in. */
    private int admissions;
    /** The record of the thread this one was started by while that thread held a permit; {@code null} otherwise. */
    private @Nullable ThreadRecord origin;
    /** The value of {@code origin.admissions} when this thread was started. */
    private int originAdmission;
    /** A permit of this thread that another thread tried to close while this one was alive. */
    private volatile @Nullable Permit abandoned;
    /**
     * Whether a {@link RequestDeadline} is bound to this thread, and when it runs out ({@code System.nanoTime()}):
     * kept here, in the record every admission reads anyway, so that a thread without one pays a field read for it.
     * Written and read by this thread only; never passed to a forked thread.
     */
    private boolean hasRequestDeadline;
    private long requestDeadlineNanos;
    /**
     * Whether the permit this thread holds has a deadline, and when it runs out: what a pool reads to bound its wait
     * for a connection ({@link AdmissionGate#currentPermitRemainingNanos()}). Set only by admissions with a deadline
     * and cleared only by their release, so that neither the fast path nor a release without one touches it.
     */
    private boolean permitHasDeadline;
    private long permitDeadlineNanos;
    /**
     * The {@link OperationClass} bound to this thread, read only by gates with {@link AdmissionRules}. Written and
     * read by this thread only; never passed to a forked thread, as the deadline is not.
     */
    private @Nullable OperationClass operationClass;
    /**
     * The operations of the request this thread serves that committed, or whose commit may have taken effect;
     * {@link RequestCommits#NOT_TRACKED} while no request is tracked ({@link RequestCommits#track()}). Written and
     * read by this thread only; never passed to a forked thread.
     */
    private int requestCommits = RequestCommits.NOT_TRACKED;
    /**
     * The operations of the request this thread serves that were admitted and have ended, whatever their outcome:
     * counted while a request is tracked. One or more makes the request a unit of work in progress — admitted once —
     * whose later operations go first under {@link AdmissionRules#inProgressFirst()}, wait within the request's
     * deadline, and are still admitted while the gate shuts down. Written and read by this thread only.
     */
    private int requestOperations;
    /**
     * The workload a {@link WorkloadBinding} names for the unit of work this thread serves (a request, a task), or
     * {@code null}: read only when a connection is taken outside every admitted operation. Written and read by this
     * thread only; never passed to a forked thread.
     */
    private @Nullable String boundWorkload;
    /**
     * Whether the permit this thread holds was taken where a connection is taken ({@link AdmissionGate#acquireAtBorrow}):
     * a second borrow while it is held is a nested one (a {@code REQUIRES_NEW}), which never waits for the pool. Set by
     * that admission, cleared with every release.
     */
    private boolean holdsBorrowPlace;

    private ThreadRecord() {
    }

    private ThreadRecord(String heldWorkload, ThreadRecord origin, int originAdmission) {
        this.heldWorkload = heldWorkload;
        this.origin = origin;
        this.originAdmission = originAdmission;
    }

    /**
     * The workload whose permit this thread holds, or the one its origin held when this thread was started, or
     * {@code null} when neither: the one field the admission fast path reads.
     */
    @Nullable String heldWorkload() {
        return heldWorkload;
    }

    /** The current thread's record. */
    static ThreadRecord current() {
        return RECORDS.get();
    }

    /** Records that this thread now holds {@code permit}; returns it. */
    Permit hold(Permit permit) {
        admissions++;
        heldWorkload = permit.workload();
        return permit;
    }

    /** Records that this thread now holds {@code permit}, whose deadline is {@code deadlineNanos}. */
    Permit holdUntil(Permit permit, long deadlineNanos) {
        permitDeadlineNanos = deadlineNanos;
        permitHasDeadline = true;
        return hold(permit);
    }

    /** Records that the permit with a deadline this thread held is given back. */
    void forgetPermitDeadline() {
        permitHasDeadline = false;
    }

    /**
     * What is left of the deadline of the permit this thread holds, zero or negative once spent;
     * {@link Permit#NO_DEADLINE} when it holds none with a deadline.
     */
    long permitRemainingNanos() {
        return permitHasDeadline ? permitDeadlineNanos - System.nanoTime() : Permit.NO_DEADLINE;
    }

    /** Records that this thread holds no permit. */
    void clear() {
        holdsBorrowPlace = false;
        HELD_WORKLOAD.setRelease(this, null);
    }

    /** Records that the permit this thread now holds was taken where a connection is taken. */
    void holdsBorrowPlace() {
        holdsBorrowPlace = true;
    }

    /** Whether this thread holds a permit taken where a connection is taken. */
    boolean holdsBorrowPlaceNow() {
        return holdsBorrowPlace && heldWorkload != null && origin == null;
    }

    /** The workload bound to the unit of work this thread serves, or {@code null}. */
    @Nullable String boundWorkload() {
        return boundWorkload;
    }

    /** Binds {@code workload} to this thread's unit of work, or unbinds it when {@code null}. */
    void boundWorkload(@Nullable String workload) {
        boundWorkload = workload;
    }

    /**
     * The record of a thread this thread is starting (called on this thread, as the thread-local is inherited): a
     * thread started inside an admitted operation is part of it, and remembers which admission that was.
     */
    ThreadRecord forChild() {
        if (heldWorkload == null) {
            return new ThreadRecord();
        }
        if (origin != null) {
            // This thread was itself forked from an operation and has not entered a gate since: pass that on.
            return new ThreadRecord(heldWorkload, origin, originAdmission);
        }
        return new ThreadRecord(heldWorkload, this, admissions);
    }

    /**
     * Whether this thread holds a permit, or was started inside an admitted operation that is still in progress; a
     * forked thread whose origin's operation has ended is settled, and a permit of this thread that another thread
     * tried to close is given back first, as an entry into a gate gives it back.
     */
    boolean inAdmittedOperation() {
        if (heldWorkload == null) {
            return false;
        }
        if (abandoned != null && giveBackAbandoned()) {
            // Its permit was closed elsewhere (a connection admitted where it was taken, closed on another thread):
            // that operation has ended, and this thread's next borrow is an operation of its own.
            return false;
        }
        return origin == null || !settleFork();
    }

    /** Whether this thread was started inside an admitted operation that it has not yet seen end. */
    boolean isForked() {
        return origin != null;
    }

    /**
     * For a forked thread whose origin's admission has ended: forgets the origin, so that this thread enters as an
     * operation of its own from now on.
     *
     * @return whether this thread holds nothing now
     */
    boolean settleFork() {
        ThreadRecord from = origin;
        if (from == null || stillAdmitted(from)) {
            return false;
        }
        origin = null;
        heldWorkload = null;
        return true;
    }

    private boolean stillAdmitted(ThreadRecord from) {
        return HELD_WORKLOAD.getAcquire(from) != null && from.admissions == originAdmission;
    }

    /** Whether a request deadline is bound to this thread. */
    boolean hasRequestDeadline() {
        return hasRequestDeadline;
    }

    /** When the request deadline bound to this thread runs out; meaningful only while one is bound. */
    long requestDeadlineNanos() {
        return requestDeadlineNanos;
    }

    /** Binds a request deadline to this thread, or unbinds it when {@code bound} is false. */
    void requestDeadline(boolean bound, long deadlineNanos) {
        hasRequestDeadline = bound;
        requestDeadlineNanos = deadlineNanos;
    }

    /** The operation class bound to this thread, or {@code null}. */
    @Nullable OperationClass operationClass() {
        return operationClass;
    }

    /** Binds {@code bound} to this thread, or unbinds any when it is {@code null}. */
    void operationClass(@Nullable OperationClass bound) {
        operationClass = bound;
    }

    /** The commits counted for the request this thread serves, or {@link RequestCommits#NOT_TRACKED}. */
    int requestCommits() {
        return requestCommits;
    }

    /** Starts, ends or restores the count of the request this thread serves. */
    void requestCommits(int commits) {
        requestCommits = commits;
    }

    /** The operations of the request this thread serves that have ended; 0 when none did or none is tracked. */
    int requestOperations() {
        return requestOperations;
    }

    /** Starts, ends or restores the count of the request's ended operations. */
    void requestOperations(int operations) {
        requestOperations = operations;
    }

    /**
     * Whether the request this thread serves is a unit of work in progress: tracked, with an operation admitted and
     * ended before.
     */
    boolean unitInProgress() {
        return requestOperations > 0 && requestCommits != RequestCommits.NOT_TRACKED;
    }

    /**
     * An operation of this thread has ended: counted when a request is tracked, among its commits as well when it
     * {@code mayHaveWritten} (it committed, or its commit may have taken effect, and it did not only read).
     */
    void operationEnded(boolean mayHaveWritten) {
        if (requestCommits != RequestCommits.NOT_TRACKED) {
            requestOperations++;
            if (mayHaveWritten) {
                requestCommits++;
            }
        }
    }

    /** Called by another thread that tried to close {@code permit}, owned by this record's thread. */
    void abandon(Permit permit) {
        abandoned = permit;
    }

    /**
     * On this record's own thread: gives back its permit that another thread tried to close, if it is still held.
     *
     * @return whether this thread holds nothing now
     */
    boolean giveBackAbandoned() {
        Permit permit = abandoned;
        if (permit == null) {
            return false;
        }
        abandoned = null;
        // The owner's own close: the permit was handed to work that has ended elsewhere.
        permit.close();
        return heldWorkload == null;
    }
}
