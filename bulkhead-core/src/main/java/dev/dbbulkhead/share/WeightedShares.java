package dev.dbbulkhead.share;

import java.util.List;

/**
 * Weighted shares with idle capacity going to others, in the two forms the product needs them.
 *
 * <ul>
 *   <li>Of a whole number of places at one instant ({@link #split}): weighted max-min fair — nobody gets more than it
 *       asks for, what one does not need is shared among the others in proportion to their weights, and the whole
 *       units left by rounding go to the largest fractions, earlier claimants first on ties.</li>
 *   <li>Of places over time, one operation after another ({@link #usePerOperation}, {@link #nextStart}): each
 *       operation counts for its claimant's use divided by its weight, the claimant least used so far goes next, and
 *       the one whose use runs furthest ahead of the others' is the furthest over its share.</li>
 * </ul>
 *
 * <p>Pure policy: no clock, no lock, no database.
 */
public final class WeightedShares {

    /** The use one operation of a claimant of weight 1 counts for; weight {@code w} counts this / w. */
    public static final long USE_SCALE = 1_000_000L;

    private WeightedShares() {
    }

    /**
     * One claimant.
     *
     * @param weight its relative size, at least 1
     * @param demand the most it can use, at least 0
     */
    public record Claim(int weight, int demand) {

        public Claim {
            requireWeight(weight);
            if (demand < 0) {
                throw new IllegalArgumentException("demand must be between 0 and " + Integer.MAX_VALUE
                        + ", was " + demand);
            }
        }
    }

    /**
     * What one operation counts for against a claimant of {@code weight}: the larger its weight, the less each of its
     * operations uses of its share.
     *
     * @throws IllegalArgumentException for a weight below 1
     */
    public static long usePerOperation(int weight) {
        requireWeight(weight);
        return USE_SCALE / weight;
    }

    /**
     * The most use a claimant saves up by using less than its share: four operations of a claimant of weight 1 (of
     * weight {@code w}, {@code 4 w} of its operations). A claimant that used less than the others of late therefore
     * starts up to this far behind the shared measure, and its next few operations — a burst, or a request's — go
     * before the busy claimants' next ones, not only its first. Saving more lets a claimant over its share that pauses
     * now and then spend its pauses ahead of one that never pauses and hold it below its own share; saving nothing
     * treats a burst of a claimant far under its share as if it were over it.
     */
    public static final long SAVED_USE_LIMIT = 4 * USE_SCALE;

    /**
     * Where a claimant's next operation starts on the shared measure of use, {@code sharedUse} being how far the
     * operations granted so far have moved it: at its own {@code use}, or, when it used less than its share, no
     * earlier than {@link #SAVED_USE_LIMIT} behind the shared measure.
     */
    public static long nextStart(long sharedUse, long use) {
        return Math.max(sharedUse - SAVED_USE_LIMIT, use);
    }

    /**
     * Whether a claimant whose use reached {@code use} starts where one that never used anything would: nothing of its
     * use is left to remember.
     */
    public static boolean startsAsNew(long sharedUse, long use) {
        return nextStart(sharedUse, use) == nextStart(sharedUse, 0L);
    }

    /**
     * @param total  what there is to divide, at least 0
     * @param claims the claimants, in the order that breaks ties
     * @return each claimant's share, in the order of {@code claims}; the shares add up to at most {@code total}
     */
    public static int[] split(int total, List<Claim> claims) {
        if (total < 0) {
            throw new IllegalArgumentException("total must be between 0 and " + Integer.MAX_VALUE + ", was " + total);
        }
        int count = claims.size();
        int[] shares = new int[count];
        boolean[] satisfied = new boolean[count];
        long remaining = total;
        long openWeight = claims.stream().mapToLong(Claim::weight).sum();
        // Water-filling: whoever asks for no more than its proportional part of what is left gets all it asks for,
        // which leaves more for the others; repeat until the rest all want more than their part.
        boolean changed = true;
        while (changed && openWeight > 0) {
            changed = false;
            for (int i = 0; i < count; i++) {
                Claim claim = claims.get(i);
                if (!satisfied[i] && (long) claim.demand() * openWeight <= remaining * claim.weight()) {
                    satisfied[i] = true;
                    shares[i] = claim.demand();
                    remaining -= claim.demand();
                    openWeight -= claim.weight();
                    changed = true;
                }
            }
        }
        if (openWeight == 0) {
            return shares;
        }
        long handedOut = 0;
        for (int i = 0; i < count; i++) {
            if (!satisfied[i]) {
                shares[i] = (int) (remaining * claims.get(i).weight() / openWeight);
                handedOut += shares[i];
            }
        }
        // Each open claimant wants more than its exact part, so a unit more never passes its demand.
        for (long left = remaining - handedOut; left > 0; left--) {
            int largest = -1;
            long largestFraction = -1;
            for (int i = 0; i < count; i++) {
                long fraction = remaining * claims.get(i).weight() % openWeight;
                if (!satisfied[i] && fraction > largestFraction) {
                    largest = i;
                    largestFraction = fraction;
                }
            }
            shares[largest]++;
            satisfied[largest] = true;
        }
        return shares;
    }

    private static void requireWeight(int weight) {
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be between 1 and " + Integer.MAX_VALUE + ", was " + weight);
        }
    }
}
