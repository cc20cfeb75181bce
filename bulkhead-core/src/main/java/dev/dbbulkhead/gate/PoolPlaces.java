package dev.dbbulkhead.gate;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * One gate's places on the ledger of its {@link LendingPool} ({@link GateLending} configures them): as a lender, the
 * ledger place each of its running operations takes beside its own execution permit; as a borrower, the places it
 * runs on beyond its own B, up to its ceiling. A gate outside every pool has one too, and never reads it on its paths.
 */
final class PoolPlaces implements LendingPool.Borrower {

    /** A permit holding no place of a pool's ledger. */
    static final byte NOT_POOLED = 0;
    /** A permit of a lender, holding its own execution permit and its place on the pool's ledger. */
    static final byte OWN_PLACE = 1;
    /** A permit running on a borrowed place: a ledger place and a place below the ceiling, no execution permit. */
    static final byte BORROWED_PLACE = 2;

    /** The pool this gate lends to or borrows from; null when it does neither. */
    private final @Nullable LendingPool pool;
    /** Whether every running operation of this gate takes its place on the pool's ledger. */
    private final boolean lends;
    /** How many places this gate may borrow at once; 0 when it does not borrow. */
    private final int borrowCeiling;
    /** Borrowed places held right now: operations running beside the counts, each also holding a ledger place. */
    private final AtomicInteger borrowedNow = new AtomicInteger();
    /**
     * The counts of the gate, once it is built and it borrows: its queued operations, which may run on lent places,
     * and its B in force, which the pool weighs it by.
     */
    private @Nullable AdmissionCounts queue;

    PoolPlaces(GateLending lending) {
        this.pool = lending.pool();
        this.lends = pool != null && lending.lends();
        this.borrowCeiling = lending.borrow();
    }

    /** Whether the gate lends to or borrows from a pool. */
    boolean inPool() {
        return pool != null;
    }

    /** Whether every running operation of the gate takes its place on the pool's ledger. */
    boolean lends() {
        return lends;
    }

    /** Whether the gate may borrow at all. */
    boolean borrows() {
        return borrowCeiling > 0;
    }

    /**
     * Registers the gate whose counts are {@code counts} with its pool when it lends — the pool reads its B there —
     * and when it borrows — its queued operations then wait in {@code counts}, in the scheduler's order —
     * called once, as the gate's construction ends.
     */
    void register(AdmissionCounts counts) {
        if (lends) {
            Objects.requireNonNull(pool).addLender(counts);
        }
        if (borrows()) {
            this.queue = counts;
            Objects.requireNonNull(pool).addBorrower(this);
        }
    }

    @Override
    public int weight() {
        return Objects.requireNonNull(queue).limits().maxConcurrent();
    }

    @Override
    public int ceiling() {
        return borrowCeiling;
    }

    @Override
    public int queued() {
        return Objects.requireNonNull(queue).parkedWaiters();
    }

    @Override
    public boolean runNextWaiterOnLentPlace() {
        if (!tryTakeBorrowed()) {
            return false;
        }
        if (Objects.requireNonNull(queue).grantLentPlace()) {
            return true;
        }
        // Nobody was left to run on it: given back without offering it again, which would only come back here.
        borrowedNow.decrementAndGet();
        Objects.requireNonNull(pool).giveBackToOwners();
        return false;
    }

    /** A borrower's operation queued: a place the lenders leave free may run it, or one queued before it, at once. */
    void queuedOperation() {
        if (borrows()) {
            Objects.requireNonNull(pool).lendToQueuedBorrowers();
        }
    }

    /**
     * The lender's B changed: what the pool lends follows it, and an owner waiting for a place may take one a grow
     * made.
     */
    void capacityChanged() {
        if (lends) {
            Objects.requireNonNull(pool).capacityChanged();
        }
    }

    /**
     * Takes a borrowed place: one below the ceiling, then one on the pool's ledger.
     *
     * @return whether both are taken; when false, nothing is held
     */
    boolean tryTakeBorrowed() {
        while (true) {
            int now = borrowedNow.get();
            if (now >= borrowCeiling) {
                return false;
            }
            if (borrowedNow.compareAndSet(now, now + 1)) {
                break;
            }
        }
        if (Objects.requireNonNull(pool).tryBorrow()) {
            return true;
        }
        borrowedNow.decrementAndGet();
        return false;
    }

    /** Gives back a place {@link #tryTakeBorrowed()} took: below the ceiling, then on the pool's ledger. */
    void giveBackBorrowed() {
        borrowedNow.decrementAndGet();
        // Last: the owner waiting for this place may take it now.
        Objects.requireNonNull(pool).giveBack();
    }

    /** Whether a borrow that failed was refused by the pool, the ceiling not being reached. */
    boolean belowCeiling() {
        return borrowedNow.get() < borrowCeiling;
    }

    /**
     * A lender's operation holding its own execution permit takes its place on the pool's ledger: at once unless a
     * borrowed operation holds it, or else waiting for the first place given back, before every borrower — as long as
     * it takes, or until its deadline.
     *
     * @return whether the place is taken; false only when the deadline came first
     */
    boolean takeOwn(boolean hasDeadline, long deadlineNanos) throws InterruptedException {
        LendingPool lendingTo = Objects.requireNonNull(pool);
        return lendingTo.takeOwn(hasDeadline, hasDeadline ? deadlineNanos - System.nanoTime() : 0L);
    }

    /**
     * Gives back the ledger place a lender's operation took with {@link #takeOwn}: for the lender's own queued
     * operation when {@code ownWaiterNext} (its execution permit went to one, which takes this place next), else for
     * any owner, then the borrowers' queued operations.
     */
    void giveBackOwn(boolean ownWaiterNext) {
        LendingPool lendingTo = Objects.requireNonNull(pool);
        if (ownWaiterNext) {
            lendingTo.giveBackToOwners();
        } else {
            lendingTo.giveBack();
        }
    }

    /** What a permit running on the gate's own execution permit holds of the ledger. */
    byte ownPermitPlace() {
        return lends ? OWN_PLACE : NOT_POOLED;
    }

    /** Borrowed places held right now. */
    @Override
    public int borrowed() {
        return borrowedNow.get();
    }

    /**
     * Takes the whole borrow ceiling of an idle gate, so that nothing is borrowed until {@link #giveBackCeiling()}.
     *
     * @return whether it is taken (always, for a gate that does not borrow); when false, nothing is held
     */
    boolean tryTakeCeiling() {
        return borrowCeiling == 0 || borrowedNow.compareAndSet(0, borrowCeiling);
    }

    /** Gives back what {@link #tryTakeCeiling()} took. */
    void giveBackCeiling() {
        borrowedNow.addAndGet(-borrowCeiling);
    }
}
