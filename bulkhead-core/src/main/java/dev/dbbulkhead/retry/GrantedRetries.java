package dev.dbbulkhead.retry;

/**
 * The retries a budget granted per time bucket, as one immutable snapshot. A withdrawal replaces the whole
 * snapshot with a compare-and-set, so that checking the window's total and counting the grant are one atomic step
 * even across buckets and between threads whose clocks read different buckets: the bound is exact, not "racy but
 * close" as in Finagle. The price is one small array per granted retry; retries are the rare path, first attempts
 * (counted elsewhere, without allocating) the hot one.
 */
final class GrantedRetries {

    private final long newestEpoch;
    private final long[] perSlot;
    private final long total;

    private GrantedRetries(long newestEpoch, long[] perSlot, long total) {
        this.newestEpoch = newestEpoch;
        this.perSlot = perSlot;
        this.total = total;
    }

    /** No retry granted yet, in a window of {@code buckets} buckets ending at {@code epoch}. */
    static GrantedRetries none(int buckets, long epoch) {
        return new GrantedRetries(epoch, new long[buckets], 0);
    }

    /** The newest bucket this snapshot counts. */
    long newestEpoch() {
        return newestEpoch;
    }

    /** The retries granted in the window ending at {@link #newestEpoch()}. */
    long total() {
        return total;
    }

    /**
     * This snapshot moved on to the window ending at {@code epoch}: the buckets that left it are dropped. Returns this
     * snapshot itself when {@code epoch} is not newer, as a thread whose clock read lags another's does not move the
     * window back.
     */
    GrantedRetries at(long epoch) {
        if (epoch <= newestEpoch) {
            return this;
        }
        int buckets = perSlot.length;
        if (epoch - newestEpoch >= buckets) {
            return none(buckets, epoch);
        }
        long[] moved = perSlot.clone();
        long kept = total;
        for (long entering = newestEpoch + 1; entering <= epoch; entering++) {
            // The slot of an entering bucket held the bucket one window older: that one leaves.
            int slot = (int) Math.floorMod(entering, (long) buckets);
            kept -= moved[slot];
            moved[slot] = 0;
        }
        return new GrantedRetries(epoch, moved, kept);
    }

    /** This snapshot with one more retry granted in its newest bucket. */
    GrantedRetries plusOne() {
        long[] counted = perSlot.clone();
        counted[(int) Math.floorMod(newestEpoch, (long) counted.length)]++;
        return new GrantedRetries(newestEpoch, counted, total + 1);
    }
}
