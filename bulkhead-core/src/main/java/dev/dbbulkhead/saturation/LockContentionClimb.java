package dev.dbbulkhead.saturation;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Where a hot row's best B lies, found by measuring: the rate at which the server's transactions write
 * ({@link DatabaseSignals#nextTransactionId()}) remembered at each B a workload ran at, and a step up to a B not yet
 * tried. Not thread-safe: one per {@link SaturationLimits} that steers a single workload, used under its lock.
 *
 * <p>Why: under lock contention the policy cuts B to what makes progress, the lock's holder and one session ready to
 * take it next. That is the best B only when nothing but the lock costs time. When a transaction also spends time
 * outside the lock — its round trips, the client's own work — one more session waiting is what keeps the lock held
 * through the next holder's round trip, and a B above the cut writes more. Sessions and waits cannot tell which; the
 * rate of writes can, so it settles the question:
 * <ul>
 *   <li>the policy's cut is followed to a B whose rate is unknown, and otherwise only as far as the lowest B whose
 *       rate is within {@value #SAME_PERCENT} % of the best remembered between the cut and the B in force: less
 *       concurrency is kept when it writes about as much, more only when it writes clearly more;</li>
 *   <li>where the policy holds or raises B while sessions wait for locks, B is raised by one to a B not yet tried, or
 *       remembered as writing clearly more.</li>
 * </ul>
 * A rate is remembered only from an interval the B in force held throughout and work wanted all of (it ran all of it,
 * queued or waited for locks), as a running mean of its last few intervals' rates, and forgotten
 * {@value #REMEMBERED_SAMPLES} samples after it was last measured, so that a change of the work is found again.
 */
final class LockContentionClimb {

    /** How far apart, in percent, two rates may be and still count as the same. */
    static final int SAME_PERCENT = 5;
    /** The samples for which a measured rate is remembered. */
    static final int REMEMBERED_SAMPLES = 30;
    /** The intervals a remembered rate is the running mean of, at most: enough to smooth one odd second. */
    static final int MEAN_OF_INTERVALS = 4;

    private record Rate(double perSecond, int intervals, long measuredAtSample) {
    }

    private final Map<Integer, Rate> rates = new HashMap<>();
    private long samples;
    private long lastTransactionId = DatabaseSignals.NOT_READ;
    private long lastSampledAtNanos;
    private int lastDecided;

    /**
     * The B to apply after one sample: the policy's {@code proposed} one, or, while {@code locksWaited}, the one the
     * measured rates point to. Remembers the rate of writes since the last sample at {@code inForce} when that was the
     * B decided at the last sample, so held throughout, and the work wants all of it.
     *
     * @param inForce     the B in force until now
     * @param proposed    the policy's
     * @param requested   the most B may be
     * @param wantsAll    whether the work wants all of {@code inForce} or more: it runs all of it, queues, or waits
     *                    for locks; otherwise the rate is the work's and says nothing of what B can do
     * @param locksWaited whether sessions of this instance's work wait for a lock
     */
    int next(DatabaseSignals signals, int inForce, int proposed, int requested, boolean wantsAll,
             boolean locksWaited) {
        samples++;
        long transactionId = signals.nextTransactionId();
        long written = transactionId - lastTransactionId;
        long elapsed = signals.sampledAtNanos() - lastSampledAtNanos;
        if (transactionId == DatabaseSignals.NOT_READ || lastTransactionId == DatabaseSignals.NOT_READ || written < 0) {
            // Unread, or a server that is not the one measured before: nothing to compare with.
            rates.clear();
        } else if ((wantsAll || locksWaited) && inForce == lastDecided && elapsed > 0) {
            remember(inForce, written * 1e9 / elapsed);
        }
        int decided = locksWaited ? choose(inForce, proposed, requested) : proposed;
        lastTransactionId = transactionId;
        lastSampledAtNanos = signals.sampledAtNanos();
        lastDecided = decided;
        return decided;
    }

    /** The rates remembered now, in transactions that wrote per second, by B from the lowest. */
    SortedMap<Integer, Double> ratesByB() {
        SortedMap<Integer, Double> known = new TreeMap<>();
        for (int b : Set.copyOf(rates.keySet())) {
            Rate rate = fresh(b);
            if (rate != null) {
                known.put(b, rate.perSecond());
            }
        }
        return Collections.unmodifiableSortedMap(known);
    }

    private void remember(int b, double perSecond) {
        Rate known = fresh(b);
        int intervals = known == null ? 1 : Math.min(MEAN_OF_INTERVALS, known.intervals() + 1);
        rates.put(b, new Rate(known == null ? perSecond
                : known.perSecond() + (perSecond - known.perSecond()) / intervals, intervals, samples));
    }

    /**
     * Without a rate at {@code inForce}, or at a lower B the policy cuts to, the policy's B: it is how rates are
     * learnt. Otherwise the cut goes only as far as the lowest B that writes about as much as the best remembered
     * between; where that leaves B where it is, one more is tried when its rate is unknown or clearly higher.
     */
    private int choose(int inForce, int proposed, int requested) {
        Rate current = fresh(inForce);
        if (current == null || proposed < inForce && fresh(proposed) == null) {
            return proposed;
        }
        int target = proposed < inForce ? lowestAboutAsGood(proposed, inForce) : proposed;
        int above = inForce + 1;
        if (target < inForce || above > requested) {
            return target;
        }
        Rate higher = fresh(above);
        return higher == null || clearlyMore(higher, current) ? Math.max(target, above) : target;
    }

    /** The lowest B from {@code from} to {@code to} that writes within the margin of the best remembered there. */
    private int lowestAboutAsGood(int from, int to) {
        double best = 0;
        for (int b = from; b <= to; b++) {
            Rate rate = fresh(b);
            best = rate == null ? best : Math.max(best, rate.perSecond());
        }
        for (int b = from; b <= to; b++) {
            Rate rate = fresh(b);
            if (rate != null && rate.perSecond() * (100 + SAME_PERCENT) >= best * 100) {
                return b;
            }
        }
        return to;
    }

    private static boolean clearlyMore(Rate higher, Rate than) {
        return higher.perSecond() * 100 > than.perSecond() * (100 + SAME_PERCENT);
    }

    private @Nullable Rate fresh(int b) {
        Rate rate = rates.get(b);
        if (rate != null && samples - rate.measuredAtSample() > REMEMBERED_SAMPLES) {
            rates.remove(b);
            return null;
        }
        return rate;
    }
}
