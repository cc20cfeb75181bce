package dev.dbbulkhead.gate;

import dev.dbbulkhead.share.WeightedShares;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.AbstractQueuedLongSynchronizer;

/**
 * The ledger of the lent places of one connection pool: the places its <em>lenders</em> (gates configured to lend,
 * {@link GateLending#lends()}) own, shared with the gates of the same pool configured to borrow. Thread-safe.
 *
 * <p>Let {@code C} be the sum of the lenders' B in force (read at each decision: a resize by an operator, the adaptive
 * limit or a fleet share changes it), and {@code L} the places taken on the ledger: one per running operation of a
 * lender on its own places, one per borrowed operation of any gate. The rules:
 * <ol>
 *   <li>every place is taken with a compare-and-set that keeps {@code L <= C}, and given back once;</li>
 *   <li>a borrow is granted only while no owner waits to take a place back, and only while {@code L < C};</li>
 *   <li>an owner (an operation of a lender already running on its own gate, within its own B) takes its place if
 *       {@code L < C}, or else waits in arrival order for the next place given back — every borrow is refused while
 *       it waits, so the first borrowed place to end is its.</li>
 * </ol>
 *
 * <p><b>Invariant</b>: {@code L <= C} whenever nobody shrank a lender meanwhile (a shrink, as in a gate, lets the
 * places above the new limit drain, and grants nothing until {@code L} is below). Since a lender's operations run only
 * within its own B and each holds a ledger place, and a gate that does not lend runs its own operations within its
 * own B and its borrowed ones on the ledger, the running operations of all the pool's gates never exceed the sum of
 * their B. A lender below its own B is never refused because of a borrow: {@code L = C} with one of its own places
 * free means a borrowed operation holds it, and that place comes back to the lender when it ends. Running work is
 * never interrupted, so the lender may wait that long (no longer than its own deadline, when it has one).
 *
 * <p><b>Who gets a freed place.</b> A place given back goes first to the owner waiting for one; else, while places
 * are free, to the queued operations of the borrowers, one place at a time: to the borrower furthest below its
 * weighted share ({@link WeightedShares#split}) of the places borrowed and free, each borrower weighing its B in force
 * and claiming what it borrows and what it has queued, up to its ceiling. So a lone borrower may take every free place,
 * and borrowers that all queue end up borrowing in proportion to their B as borrowed places end — running work is
 * never interrupted to get there.
 */
public final class LendingPool {

    private final String name;
    private final Ledger ledger = new Ledger();
    /** Written when a gate is built, read at every decision: few writes, many reads. */
    private final List<AdmissionCounts> lenders = new CopyOnWriteArrayList<>();
    /** Written when a gate is built, read when a place frees. */
    private final List<Borrower> borrowers = new CopyOnWriteArrayList<>();

    /** A gate that borrows, as the pool sees it when a place frees: what it weighs, borrows and has queued. */
    interface Borrower {

        /** Its weight among the borrowers: its B in force, at least 1. */
        int weight();

        /** The most places it may borrow at once. */
        int ceiling();

        /** Places it borrows right now. */
        int borrowed();

        /** Its operations queued for a place right now. */
        int queued();

        /**
         * Takes a place on the ledger for the operation its order puts first among those queued, and lets it run.
         *
         * @return whether one runs on it; when false, nothing is held
         */
        boolean runNextWaiterOnLentPlace();
    }

    /** @param name what the pool is called in reports: its DataSource bean name, say */
    public LendingPool(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /** The pool's name. */
    public String name() {
        return name;
    }

    /** Places taken on the ledger right now. For observation only. */
    public long inUse() {
        return ledger.inUse();
    }

    /** The lenders' B in force, summed: what the ledger may hand out. For observation only. */
    public long capacity() {
        long sum = 0;
        for (AdmissionCounts lender : lenders) {
            sum += lender.limits().maxConcurrent();
        }
        return sum;
    }

    /** Whether an owner waits for a borrowed place to come back right now. For observation only. */
    public boolean reclaiming() {
        return ledger.hasQueuedThreads();
    }

    /**
     * Registers a gate whose own places the ledger lends, by its counts, whose limits say its B in force; called once,
     * as the gate's construction ends.
     */
    void addLender(AdmissionCounts lender) {
        lenders.add(lender);
    }

    /** Registers a gate that borrows; called once, as the gate's construction ends. */
    void addBorrower(Borrower borrower) {
        borrowers.add(borrower);
    }

    /** A borrow: granted only when no owner waits and a place is free; when false, nothing changed. */
    boolean tryBorrow() {
        return !ledger.hasQueuedThreads() && ledger.tryTake(capacity());
    }

    /**
     * An owner takes its place: at once if one is free and no other owner waits before it, or else waits for the
     * next place given back, at most {@code maxWaitNanos} when {@code timed}.
     *
     * @return whether the place is taken; false only when a timed wait ran out
     * @throws InterruptedException when interrupted before or while waiting; nothing is then taken
     */
    boolean takeOwn(boolean timed, long maxWaitNanos) throws InterruptedException {
        if (timed) {
            return ledger.tryAcquireSharedNanos(1L, maxWaitNanos);
        }
        ledger.acquireSharedInterruptibly(1L);
        return true;
    }

    /** A lender's B changed: wakes the first waiting owner, who takes any place a grow made; else borrowers may. */
    void capacityChanged() {
        ledger.releaseShared(0L);
        lendToQueuedBorrowers();
    }

    /**
     * Gives back one place taken by {@link #tryBorrow} or {@link #takeOwn}: the first waiting owner may take it, and
     * when none waits, the queued operations of the borrowers.
     */
    void giveBack() {
        ledger.releaseShared(1L);
        lendToQueuedBorrowers();
    }

    /**
     * Gives back one place for an owner alone: a lender's own operation ended and handed its execution permit to one
     * of the lender's queued operations, which takes this place next.
     */
    void giveBackToOwners() {
        ledger.releaseShared(1L);
    }

    /**
     * While no owner waits and places are free, runs queued operations of the borrowers on them, one place at a time,
     * each to the borrower furthest below its weighted share. Returns once no place is free, an owner waits, no
     * borrower below its ceiling has an operation queued, or the one chosen had none left by the time its place was
     * taken.
     */
    void lendToQueuedBorrowers() {
        // Whether any borrower may take a place is asked first: a release while none queues reads no lender's B and
        // builds no claims.
        while (!ledger.hasQueuedThreads() && anyBorrowerMayTakeOne()) {
            long free = capacity() - ledger.inUse();
            Borrower next = free > 0 ? BorrowerShares.furthestBelowShare(borrowers.toArray(new Borrower[0]), free)
                    : null;
            if (next == null || !next.runNextWaiterOnLentPlace()) {
                return;
            }
        }
    }

    private boolean anyBorrowerMayTakeOne() {
        for (Borrower borrower : borrowers) {
            if (BorrowerShares.mayTakeOne(borrower, borrower.borrowed())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "LendingPool[" + name + ", inUse=" + inUse() + ", capacity=" + capacity() + "]";
    }

    /** The places taken, with the owners waiting for one in arrival order. */
    private final class Ledger extends AbstractQueuedLongSynchronizer {

        private static final long serialVersionUID = 1L;

        long inUse() {
            return getState();
        }

        boolean tryTake(long capacity) {
            while (true) {
                long taken = getState();
                if (taken >= capacity) {
                    return false;
                }
                if (compareAndSetState(taken, taken + 1)) {
                    return true;
                }
            }
        }

        @Override
        protected long tryAcquireShared(long ignored) {
            // Owners in arrival order: one arriving now does not pass one that waits.
            if (hasQueuedPredecessors()) {
                return -1L;
            }
            long capacity = capacity();
            return tryTake(capacity) ? Math.max(0L, capacity - getState()) : -1L;
        }

        @Override
        protected boolean tryReleaseShared(long places) {
            while (true) {
                long taken = getState();
                if (compareAndSetState(taken, taken - places)) {
                    return true;
                }
            }
        }
    }
}
