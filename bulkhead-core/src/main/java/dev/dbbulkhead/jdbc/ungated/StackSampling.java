package dev.dbbulkhead.jdbc.ungated;

import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

/**
 * Which of a pool's borrows that only the default workload caught have their stack read, when nothing but the report
 * of their call sites asks for it. Reading a stack costs about a third of a microsecond a frame — some nine
 * microseconds under a bare transaction, a tenth of a one-row transaction's CPU — which a borrow no rule reads the
 * stack for should not pay each time. A pool reads each of its first {@link #firstRead()} such borrows, so that a
 * report is exact while it is small (at start-up, in a test), then one in {@link #oneIn()}, picked at random, each
 * counting for {@code oneIn} in its site's count. The report's total counts every borrow, read or not. Immutable.
 */
public final class StackSampling {

    /** How many of a pool's borrows caught only by the default are each read before it samples. */
    public static final long FIRST_READ = 1_000;

    /** One borrow in how many is read once a pool samples. */
    public static final int ONE_IN = 64;

    private static final StackSampling EVERY_BORROW = new StackSampling(Long.MAX_VALUE, 1, () -> true);

    private static final StackSampling DEFAULTS = new StackSampling(FIRST_READ, ONE_IN,
            () -> ThreadLocalRandom.current().nextInt(ONE_IN) == 0);

    private final long firstRead;
    private final int oneIn;
    private final BooleanSupplier picks;

    private StackSampling(long firstRead, int oneIn, BooleanSupplier picks) {
        this.firstRead = firstRead;
        this.oneIn = oneIn;
        this.picks = picks;
    }

    /** Every borrow read, its site counted exactly: what reading the stack for a rule costs anyway. */
    public static StackSampling everyBorrow() {
        return EVERY_BORROW;
    }

    /** The first {@value #FIRST_READ} borrows read, then one in {@value #ONE_IN} at random. */
    public static StackSampling defaults() {
        return DEFAULTS;
    }

    /**
     * A sampling of one's own: the first {@code firstRead} borrows read, then those {@code picks} chooses, each counting
     * for {@code oneIn}.
     *
     * @param firstRead how many borrows are each read before sampling, 0 or more
     * @param oneIn     one borrow in how many is read once sampling, 1 or more: what each read one counts for
     * @param picks     whether the borrow at hand is read once sampling: true once in {@code oneIn} calls on average;
     *                  called by the borrowing thread, so it must be thread-safe and cheap
     * @throws IllegalArgumentException naming the value out of its range
     */
    public static StackSampling of(long firstRead, int oneIn, BooleanSupplier picks) {
        if (firstRead < 0) {
            throw new IllegalArgumentException("firstRead is " + firstRead + ": it must be 0 or more");
        }
        if (oneIn < 1) {
            throw new IllegalArgumentException("oneIn is " + oneIn + ": it must be 1 or more");
        }
        return new StackSampling(firstRead, oneIn, Objects.requireNonNull(picks, "picks"));
    }

    /** How many borrows are each read before sampling. */
    public long firstRead() {
        return firstRead;
    }

    /** One borrow in how many is read once sampling; 1 when every one is. */
    public int oneIn() {
        return oneIn;
    }

    /** Whether every borrow is read. */
    public boolean readsEvery() {
        return oneIn == 1 && firstRead == Long.MAX_VALUE;
    }

    /** Whether, once sampling, the borrow at hand is read. */
    boolean picks() {
        return picks.getAsBoolean();
    }

    @Override
    public String toString() {
        return readsEvery() ? "StackSampling[every borrow]"
                : "StackSampling[first " + firstRead + ", then one in " + oneIn + "]";
    }
}
