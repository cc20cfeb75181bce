package dev.dbbulkhead.gate;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How a gate takes part in lending between the workloads of one connection pool ({@link LendingPool}): whether its
 * own places, while it leaves them unused, may be borrowed by the pool's other gates, and how many places beyond its
 * own B it may borrow from them. Immutable. {@link #none()} — the default of every {@link GateConfig} — keeps the gate
 * out of every pool, fast path included.
 *
 * <p>A borrow is tried only when all of the gate's own B run and nobody waits in it, so a borrower never passes its own
 * waiters; a borrowed place is refused first when its owner needs it back ({@link dev.dbbulkhead.RejectionReason#BORROW_REFUSED}).
 */
public final class GateLending {

    /** Default ceiling of borrowed places: none. */
    public static final int DEFAULT_BORROW = 0;
    /** The largest ceiling of borrowed places. */
    public static final int MAX_BORROW = 1_000_000;

    private static final GateLending NONE = new GateLending(null, 0, false);

    private final @Nullable LendingPool pool;
    private final int borrow;
    private final boolean lends;

    private GateLending(@Nullable LendingPool pool, int borrow, boolean lends) {
        this.pool = pool;
        this.borrow = borrow;
        this.lends = lends;
    }

    /** No lending: the gate neither lends nor borrows. */
    public static GateLending none() {
        return NONE;
    }

    /**
     * A gate of {@code pool} that borrows at most {@code borrow} places beyond its own B, and lends its own unused
     * places when {@code lends}.
     *
     * @throws IllegalArgumentException for a ceiling outside 0 to {@value #MAX_BORROW}
     */
    public static GateLending of(LendingPool pool, int borrow, boolean lends) {
        Objects.requireNonNull(pool, "pool");
        if (borrow < 0 || borrow > MAX_BORROW) {
            throw new IllegalArgumentException("borrow must be between 0 and " + MAX_BORROW + ", was " + borrow);
        }
        return borrow == 0 && !lends ? NONE : new GateLending(pool, borrow, lends);
    }

    /** Whether the gate takes part in a pool: it lends, or borrows. */
    public boolean isNone() {
        return pool == null;
    }

    /** The pool, or null for {@link #none()}. */
    public @Nullable LendingPool pool() {
        return pool;
    }

    /** How many places beyond its own B the gate may borrow at once; 0 when it does not borrow. */
    public int borrow() {
        return borrow;
    }

    /** Whether the gate's own unused places may be borrowed by the pool's other gates. */
    public boolean lends() {
        return lends;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof GateLending that && pool == that.pool && borrow == that.borrow && lends == that.lends;
    }

    @Override
    public int hashCode() {
        return Objects.hash(System.identityHashCode(pool), borrow, lends);
    }

    @Override
    public String toString() {
        return isNone() ? "GateLending[none]" : "GateLending[pool=" + Objects.requireNonNull(pool).name()
                + ", borrow=" + borrow + ", lends=" + lends + "]";
    }
}
