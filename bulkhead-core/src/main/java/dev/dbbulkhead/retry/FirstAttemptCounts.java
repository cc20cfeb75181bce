package dev.dbbulkhead.retry;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * First attempts per time bucket, in a ring of cells reused as time moves on: bounded memory whatever the traffic.
 * Each cell is one {@code long} holding the bucket's epoch tag (high 32 bits) and its count (low 32 bits), so that
 * resetting a stale bucket and counting into the fresh one are a single compare-and-set: a deposit is never lost to
 * a reset that raced it, and never counted twice. Counting is one {@code getAndIncrement} when the bucket is
 * current; no lock anywhere.
 *
 * <p>The tag is the bucket's epoch (clock nanos divided by the bucket length) truncated to 32 bits and compared by
 * signed difference: unambiguous while a cell is touched at least every 2^31 buckets (about 6.8 years of 100 ms
 * buckets). A count needs 2^32 first attempts in one bucket to overflow: tens of billions a second.
 */
final class FirstAttemptCounts {

    private static final long COUNT_MASK = 0xFFFF_FFFFL;

    private final AtomicLongArray cells;

    /** All buckets of the window ending at {@code startEpoch}, empty. */
    FirstAttemptCounts(int buckets, long startEpoch) {
        this.cells = new AtomicLongArray(buckets);
        for (long epoch = startEpoch - buckets + 1; epoch <= startEpoch; epoch++) {
            cells.set(slotOf(epoch), pack(epoch, 0));
        }
    }

    /** Counts one first attempt in the bucket of {@code epoch}. */
    void record(long epoch) {
        int slot = slotOf(epoch);
        long prior = cells.getAndIncrement(slot);
        if (!isOlder(tagOf(prior), (int) epoch)) {
            // The bucket was ours (the common case), or a later one: a thread that read the clock, then stalled
            // past a whole window, counts its attempt as of now rather than losing it.
            return;
        }
        // The cell still held a bucket that left the window: the increment above went to a dead count. Start the
        // bucket afresh with this attempt, unless another thread did so first, then count into what it started.
        for (;;) {
            long stale = cells.get(slot);
            long next = isOlder(tagOf(stale), (int) epoch) ? pack(epoch, 1) : stale + 1;
            if (cells.compareAndSet(slot, stale, next)) {
                return;
            }
        }
    }

    /**
     * The first attempts in the {@code buckets} buckets ending at {@code newestEpoch}. Counts that land while it reads
     * may be missed, never invented: the budget can only err towards fewer retries.
     */
    long inWindowEndingAt(long newestEpoch) {
        long sum = 0;
        for (long epoch = newestEpoch - cells.length() + 1; epoch <= newestEpoch; epoch++) {
            long cell = cells.get(slotOf(epoch));
            if (tagOf(cell) == (int) epoch) {
                sum += cell & COUNT_MASK;
            }
        }
        return sum;
    }

    private int slotOf(long epoch) {
        return (int) Math.floorMod(epoch, (long) cells.length());
    }

    private static long pack(long epoch, long count) {
        return (epoch << 32) | count;
    }

    private static int tagOf(long cell) {
        return (int) (cell >>> 32);
    }

    private static boolean isOlder(int tag, int than) {
        return than - tag > 0;
    }
}
