package dev.dbbulkhead.metrics;

import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.GateListener;
import dev.dbbulkhead.gate.OperationClass;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The admissions and rejections of a workload with fair shares, counted per key for its busiest keys and together
 * for the rest ({@value #OTHER}): what the per-key meters and the endpoint show. Bounded whatever keys clients send:
 * the busiest keys are found with a space-saving sketch of a fixed number of entries (four per metered key, at least
 * sixteen), and at most {@code meteredKeys} of them are <em>named</em> — counted on their own — at once.
 *
 * <p>A key is named once the operations it is known to have had (its sketch count less the count it inherited on
 * taking its entry) exceed what any key the sketch lost track of may have had (its least count): while there is room,
 * or in place of the weakest named key, when it is known to have had more than that one. A flood of distinct keys, each
 * seen once, so never takes a named place, and named keys change only when another key really is busier. As in any
 * space-saving sketch, a key is sure to be kept only while it has more than one operation in every
 * {@code entries} of the workload's keyed operations. A key's own counts start when it is named; before, and once displaced, its
 * operations count as {@value #OTHER}. Operations without a key are counted under the workload's keyless key when it
 * has one ({@link #KeyTally(String, int, String)}), as the gate holds them to that key's share; otherwise not at all.
 *
 * <p>A gate listener, told on the deciding thread, which reads the thread's {@link OperationClass}. Each decision is a
 * few steps under a short lock (a {@code ReentrantLock}, which a waiting virtual thread does not pin); observers are told of named and displaced keys after it is released. Counts are read
 * without the lock.
 */
public final class KeyTally implements GateListener {

    /** The key under which the operations of every key not named are counted. */
    public static final String OTHER = "other";

    private final String workload;
    private final int meteredKeys;
    private final Entry[] entries;
    /** Bounded by the entries' number: each key it holds is one entry's. */
    private final Map<String, Entry> byKey;
    private final Counts other = new Counts(OTHER);
    private final @Nullable String keylessKey;
    private final List<Observer> observers = new CopyOnWriteArrayList<>();
    /** Guards the sketch: a few steps per decision, never held while waiting or while observers are told. */
    private final ReentrantLock lock = new ReentrantLock();
    private int size;
    private int named;

    /**
     * @param workload    the workload whose operations it counts
     * @param meteredKeys how many keys may be counted on their own at once, 0 to count every key as {@value #OTHER}
     * @param keylessKey  the key operations without one are counted under, as the gate's fair shares count them; null
     *                    not to count them
     */
    public KeyTally(String workload, int meteredKeys, @Nullable String keylessKey) {
        this.keylessKey = keylessKey;
        if (meteredKeys < 0) {
            throw new IllegalArgumentException("meteredKeys must be at least 0, was " + meteredKeys);
        }
        this.workload = Objects.requireNonNull(workload, "workload");
        this.meteredKeys = meteredKeys;
        this.entries = new Entry[Math.max(16, 4 * meteredKeys)];
        this.byKey = new HashMap<>(2 * entries.length);
    }

    /** Told when a key is named, or displaced by a busier one. */
    public interface Observer {

        /** {@code key} is now counted on its own, in {@code counts}. */
        void named(String workload, Counts counts);

        /** {@code counts}' key is no longer counted on its own: its operations now count as {@value #OTHER}. */
        void displaced(String workload, Counts counts);
    }

    /** The admissions and rejections counted for one key since it was named, or for {@value #OTHER}. */
    public static final class Counts {

        private final String key;
        private volatile long admitted;
        private volatile long rejected;

        Counts(String key) {
            this.key = key;
        }

        /** The key, or {@value #OTHER}. */
        public String key() {
            return key;
        }

        /** Operations admitted. */
        public long admitted() {
            return admitted;
        }

        /** Operations refused, for any reason. */
        public long rejected() {
            return rejected;
        }

        @Override
        public String toString() {
            return key + "[admitted=" + admitted + ", rejected=" + rejected + "]";
        }
    }

    /** The workload counted. */
    public String workload() {
        return workload;
    }

    /** How many keys may be counted on their own at once. */
    public int meteredKeys() {
        return meteredKeys;
    }

    /**
     * Tells {@code observer} of every key named from now on, and of those named already (as named), so that it misses
     * none.
     */
    public void observe(Observer observer) {
        List<Counts> already;
        lock.lock();
        try {
            observers.add(observer);
            already = namedCounts();
        } finally {
            lock.unlock();
        }
        already.forEach(counts -> observer.named(workload, counts));
    }

    /** The counts of the keys named now, busiest first. */
    public List<Counts> topKeys() {
        List<Counts> top;
        lock.lock();
        try {
            top = namedCounts();
        } finally {
            lock.unlock();
        }
        top.sort(Comparator.comparingLong((Counts counts) -> counts.admitted + counts.rejected).reversed());
        return top;
    }

    /** The counts of every operation with a key that is not named. */
    public Counts other() {
        return other;
    }

    @Override
    public void onAdmitted(String workload, long queueWaitNanos) {
        record(true);
    }

    @Override
    public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
        record(false);
    }

    private void record(boolean admitted) {
        String key = OperationClass.current().flatMap(OperationClass::key).orElse(keylessKey);
        if (key != null) {
            record(key, admitted);
        }
    }

    /** Counts one operation of {@code key}. */
    void record(String key, boolean admitted) {
        Counts displaced = null;
        Counts newlyNamed = null;
        lock.lock();
        try {
            Entry entry = entryOf(key);
            if (entry.counts == null && entry.victim != null) {
                displaced = entry.victim;
            }
            entry.victim = null;
            entry.count++;
            if (entry.counts == null && entry.known() > leastCount()) {
                Counts weakest = displaceable(entry);
                if (weakest != null || named < meteredKeys) {
                    if (weakest != null) {
                        displaced = weakest;
                    } else {
                        named++;
                    }
                    entry.counts = new Counts(key);
                    newlyNamed = entry.counts;
                }
            }
            Counts target = entry.counts != null ? entry.counts : other;
            // Written under the lock, read without it: volatile, never torn.
            if (admitted) {
                target.admitted++;
            } else {
                target.rejected++;
            }
        } finally {
            lock.unlock();
        }
        tell(displaced, newlyNamed);
    }

    /** The key's entry: its own, a free one, or — space-saving — the least counted, whose count it inherits. */
    private Entry entryOf(String key) {
        Entry entry = byKey.get(key);
        if (entry != null) {
            return entry;
        }
        if (size < entries.length) {
            entry = new Entry(key);
            entries[size++] = entry;
        } else {
            entry = entries[0];
            for (int i = 1; i < size; i++) {
                if (entries[i].count < entry.count) {
                    entry = entries[i];
                }
            }
            byKey.remove(entry.key);
            if (entry.counts != null) {
                // The evicted key was named: its place among the named is free again.
                entry.victim = entry.counts;
                entry.counts = null;
                named--;
            }
            entry.key = key;
            entry.inherited = entry.count;
        }
        byKey.put(key, entry);
        return entry;
    }

    /**
     * The most operations a key the sketch does not hold may have had: the least count of a full sketch, 0 while it
     * has room. A key is named only once it is known to have had more, so that a flood of keys, each new one taking
     * the least counted entry, never names one.
     */
    private long leastCount() {
        if (size < entries.length) {
            return 0;
        }
        long least = Long.MAX_VALUE;
        for (int i = 0; i < size; i++) {
            least = Math.min(least, entries[i].count);
        }
        return least;
    }

    /**
     * The named key {@code challenger} is known to have overtaken, whose place it takes; null when none, or there is
     * room. Known counts on both sides, so that an error inherited from the sketch favours neither.
     */
    private @Nullable Counts displaceable(Entry challenger) {
        if (named < meteredKeys || meteredKeys == 0) {
            return null;
        }
        Entry weakest = null;
        for (int i = 0; i < size; i++) {
            Entry entry = entries[i];
            if (entry.counts != null && (weakest == null || entry.known() < weakest.known())) {
                weakest = entry;
            }
        }
        if (weakest == null || challenger.known() <= weakest.known()) {
            return null;
        }
        Counts displaced = weakest.counts;
        weakest.counts = null;
        return displaced;
    }

    private List<Counts> namedCounts() {
        List<Counts> counts = new ArrayList<>(named);
        for (int i = 0; i < size; i++) {
            Counts own = entries[i].counts;
            if (own != null) {
                counts.add(own);
            }
        }
        return counts;
    }

    private void tell(@Nullable Counts displaced, @Nullable Counts newlyNamed) {
        if (displaced == null && newlyNamed == null) {
            return;
        }
        for (Observer observer : observers) {
            if (displaced != null) {
                observer.displaced(workload, displaced);
            }
            if (newlyNamed != null) {
                observer.named(workload, newlyNamed);
            }
        }
    }

    @Override
    public String toString() {
        return "KeyTally[" + workload + ", top " + meteredKeys + "]";
    }

    /** One entry of the sketch: a key, its estimated count, and its own counts while named. */
    private static final class Entry {

        private String key;
        private long count;
        /** The count the key inherited on taking the entry: the most its estimate may exceed what it had. */
        private long inherited;
        private @Nullable Counts counts;
        /** The counts of the named key this entry's key evicted, to tell observers once the lock is released. */
        private @Nullable Counts victim;

        Entry(String key) {
            this.key = key;
        }

        /** The operations the key is known to have had: its count less what it inherited. */
        long known() {
            return count - inherited;
        }
    }
}
