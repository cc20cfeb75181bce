package dev.dbbulkhead.jdbc.ungated;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One pool's record of the connections borrowed outside every gate: how many, from which call sites (each reported
 * once to the listener), and what recognised infrastructure borrowed. Memory is bounded whatever the traffic: at
 * most {@link DetectionSettings#maxCallSites()} call sites are kept, the borrows of any further one are counted
 * together. Thread-safe; it takes no lock, so a borrowing virtual thread never pins.
 */
public final class UngatedConnectionDetector {

    private final String pool;
    private final DetectionSettings settings;
    private final UngatedConnectionListener listener;
    private final LongAdder connections = new LongAdder();
    private final Map<CallSite, LongAdder> callSites = new ConcurrentHashMap<>();
    /**
     * The count of each kept site by the key of a frame that borrowed from it ({@link CallerRules.Verdict#key()}): a
     * borrow from a site already counted finds its count here without resolving the site's file and line. At most
     * {@link DetectionSettings#maxCallSites()} keys; a borrow whose key finds no room is counted by its site.
     */
    private final Map<Object, LongAdder> countsByFrame = new ConcurrentHashMap<>();
    private final AtomicInteger framesKept = new AtomicInteger();
    /** Places taken in {@link #callSites}, reserved before an insert so that the map never grows past the cap. */
    private final AtomicInteger places = new AtomicInteger();
    private final LongAdder otherCallSites = new LongAdder();
    private final AtomicBoolean fullReported = new AtomicBoolean();
    /** Bounded by the rules, which are fixed. */
    private final Map<String, LongAdder> recognised = new ConcurrentHashMap<>();

    /**
     * @param pool     the pool's name, as reports and refusals name it
     * @param settings how borrows are read, kept and answered
     * @param listener told of each new call site
     */
    public UngatedConnectionDetector(String pool, DetectionSettings settings, UngatedConnectionListener listener) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * A connection is being borrowed by a thread outside every admitted operation: finds its caller and records it.
     * Costs a walk of the stack, on this path only.
     *
     * @throws UngatedConnectionException when the settings refuse such borrows and the caller is not recognised
     */
    void borrowedOutsideGates() throws UngatedConnectionException {
        String allowed = UngatedWork.allowedRule();
        if (allowed != null) {
            recognisedBy(allowed);
            return;
        }
        record(settings.rules().judge(CallerRules.stack()));
    }

    /**
     * Records what a borrow's stack showed: the seam through which tests drive floods of distinct call sites.
     *
     * @throws UngatedConnectionException when the settings refuse such borrows and the caller is not recognised
     */
    void record(CallerRules.Verdict verdict) throws UngatedConnectionException {
        if (verdict.recognisedBy() != null) {
            recognisedBy(verdict.recognisedBy());
            return;
        }
        record(verdict, 1, site -> settings.describe(pool, site));
    }

    /**
     * Records a borrow of {@code verdict}'s call site that no rule classified, so that the default workload admits it
     * ({@link PoolAdmission}): counted and reported as the ungated are, for the same reason — nothing named where it
     * comes from — and refused as they are in {@code fail} mode.
     *
     * @param weight how many borrows of the site this one stands for: more than 1 when only some are read
     *               ({@link StackSampling})
     * @throws UngatedConnectionException when the settings refuse such borrows
     */
    void caughtByDefault(CallerRules.Verdict verdict, int weight, String defaultWorkload, WorkRules rules)
            throws UngatedConnectionException {
        Thread thread = Thread.currentThread();
        record(verdict, weight, site -> settings.describeCaughtByDefault(pool, site, defaultWorkload, thread,
                rules.executorOf(thread.getName())));
    }

    /**
     * Counts a borrow that only the default workload caught and whose stack was not read: in the total, not in any
     * site's count ({@link StackSampling}).
     */
    void caughtByDefaultUnread() {
        connections.increment();
    }

    /**
     * Counts a borrow of {@code verdict}'s call site, standing for {@code weight} in the site's count; describes it —
     * only for its first borrow, or to refuse it — with {@code description}, which formats a message: the steady
     * borrow of a known site pays for none, nor for resolving the site.
     */
    private void record(CallerRules.Verdict verdict, int weight, Function<CallSite, String> description)
            throws UngatedConnectionException {
        connections.increment();
        Object key = Objects.requireNonNull(verdict.key(), "the call site");
        LongAdder known = settings.refuse() ? null : countsByFrame.get(key);
        if (known != null) {
            known.add(weight);
            return;
        }
        CallSite site = Objects.requireNonNull(verdict.site(), "the call site");
        boolean first = counted(site, weight);
        LongAdder count = callSites.get(site);
        if (count != null && !settings.refuse() && reservePlace(framesKept)
                && countsByFrame.putIfAbsent(key, count) != null) {
            framesKept.decrementAndGet();
        }
        if (first || settings.refuse()) {
            String described = description.apply(site);
            if (first) {
                listener.newCallSite(pool, site, described, settings.refuse());
            }
            if (settings.refuse()) {
                throw new UngatedConnectionException(pool, site, described);
            }
        }
    }

    void recognisedBy(String rule) {
        recognised.computeIfAbsent(rule, any -> new LongAdder()).increment();
    }

    /** Counts {@code weight} borrows of {@code site}; returns whether it is the site's first. */
    private boolean counted(CallSite site, int weight) {
        LongAdder known = callSites.get(site);
        if (known != null) {
            known.add(weight);
            return false;
        }
        if (!reservePlace(places)) {
            otherCallSites.add(weight);
            if (fullReported.compareAndSet(false, true)) {
                listener.callSitesFull(pool, settings.maxCallSites());
            }
            return false;
        }
        LongAdder first = new LongAdder();
        first.add(weight);
        LongAdder raced = callSites.putIfAbsent(site, first);
        if (raced != null) {
            // Another thread inserted the same site meanwhile: its place serves both.
            places.decrementAndGet();
            raced.add(weight);
            return false;
        }
        return true;
    }

    /**
     * Takes one of the {@link DetectionSettings#maxCallSites()} places that {@code places} counts; false when none is
     * left.
     */
    private boolean reservePlace(AtomicInteger places) {
        int taken;
        do {
            taken = places.get();
            if (taken >= settings.maxCallSites()) {
                return false;
            }
        } while (!places.compareAndSet(taken, taken + 1));
        return true;
    }

    /** The pool's name. */
    public String pool() {
        return pool;
    }

    /** The settings it reads borrows with. */
    public DetectionSettings settings() {
        return settings;
    }

    /** Connections borrowed outside every gate and not recognised so far, refused ones included. */
    public long connections() {
        return connections.sum();
    }

    /** What it has seen so far. */
    public UngatedConnectionReport report() {
        List<UngatedConnectionReport.CallSiteCount> sites = new ArrayList<>();
        callSites.forEach((site, count) -> sites.add(new UngatedConnectionReport.CallSiteCount(site, count.sum())));
        sites.sort(Comparator.comparingLong(UngatedConnectionReport.CallSiteCount::connections).reversed()
                .thenComparing(count -> count.site().toString()));
        Map<String, Long> byRule = new LinkedHashMap<>();
        recognised.forEach((rule, count) -> byRule.put(rule, count.sum()));
        return new UngatedConnectionReport(pool, connections.sum(), sites, otherCallSites.sum(), byRule);
    }

    @Override
    public String toString() {
        return "UngatedConnectionDetector[" + pool + ", " + connections.sum() + " ungated]";
    }
}
