package dev.dbbulkhead.saturation;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * One workload's recommended B over a window of samples: the median of the B each sample's evidence pointed to, moved
 * only once the B it shows is no longer within the middle half of those estimates.
 *
 * <p>One sample's estimate swings with what the server happens to run at its instant (an operation between two
 * statements is on no processor): under a steady load it may read 10, 3, 2, 4, 2, 10 one second after another. The
 * median of a window of them stands still; and a B within their middle half is as good an answer as the median, so
 * the shown B follows the median only once it has left that half: after a real change, within about three quarters
 * of the window. Until the window holds {@value #SURE_SAMPLES} estimates, the B follows their median as it goes: the
 * start-up of a load must not pin it.
 *
 * <p>Samples without evidence of the workload's own (it runs nothing, the server is merely busy) neither vote nor age
 * the window: once the load is gone, the recommendation stays the one its samples supported. Time is the samples'
 * own ({@link DatabaseSignals#sampledAtNanos()}). Not thread-safe: fed by one {@link SaturationLimits} under its lock.
 */
final class RecommendationWindow {

    /** The fewest estimates in the window before a B is recommended: one sample is no window. */
    static final int LEAST_SAMPLES = 5;
    /** The fewest estimates in the window, the database saturated at one of them at least, for a sure recommendation. */
    static final int SURE_SAMPLES = 20;

    private record Estimate(long atNanos, int b, boolean saturated) {
    }

    private final Duration window;
    private final long windowNanos;
    private final ArrayDeque<Estimate> estimates = new ArrayDeque<>();
    private SaturationLimits.@Nullable Recommendation shown;

    RecommendationWindow(Duration window) {
        this.window = Objects.requireNonNull(window, "window");
        this.windowNanos = window.toNanos();
    }

    /**
     * Takes one sample's estimate.
     *
     * @param atNanos   when the sample was read
     * @param estimate  the B its evidence points to; empty when it holds none
     * @param saturated whether the database was saturated or its locks contended at the sample
     * @return whether the recommended B changed (appeared, or moved)
     */
    boolean onSample(long atNanos, OptionalInt estimate, boolean saturated) {
        if (estimate.isEmpty()) {
            return false;
        }
        estimates.addLast(new Estimate(atNanos, estimate.getAsInt(), saturated));
        while (atNanos - estimates.peekFirst().atNanos() >= windowNanos) {
            estimates.removeFirst();
        }
        if (estimates.size() < LEAST_SAMPLES) {
            return false;
        }
        int[] sorted = estimates.stream().mapToInt(Estimate::b).sorted().toArray();
        int lowerQuartile = nearestRank(sorted, 0.25);
        int upperQuartile = nearestRank(sorted, 0.75);
        SaturationLimits.Recommendation before = shown;
        // Every estimate is at least 1: a B of 0 for none is within no quartiles.
        int previous = before == null ? 0 : before.limit();
        // Until the window holds enough to be sure, the B follows the median: else the first samples of a load, its
        // start-up, would pin the B for as long as they stay in the window.
        boolean holds = sorted.length >= SURE_SAMPLES && previous >= lowerQuartile && previous <= upperQuartile;
        int limit = holds ? previous : nearestRank(sorted, 0.5);
        int saturatedSamples = (int) estimates.stream().filter(Estimate::saturated).count();
        boolean sure = sorted.length >= SURE_SAMPLES && saturatedSamples > 0;
        shown = new SaturationLimits.Recommendation(limit, sure ? SaturationLimits.Confidence.HIGH
                : SaturationLimits.Confidence.LOW, sorted.length, saturatedSamples, lowerQuartile, upperQuartile,
                window);
        return previous != limit;
    }

    /** The recommended B with its support, as the last sample with evidence left it; empty before there is one. */
    Optional<SaturationLimits.Recommendation> recommendation() {
        return Optional.ofNullable(shown);
    }

    /** The value at quantile {@code q} of {@code sorted}, by nearest rank: always one of the estimates. */
    private static int nearestRank(int[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

}
