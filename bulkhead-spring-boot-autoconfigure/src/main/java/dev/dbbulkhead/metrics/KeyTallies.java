package dev.dbbulkhead.metrics;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The {@link KeyTally} of each workload with fair shares, as its gate is built: read by the endpoint, metered by
 * {@link KeyMeterBinder}. One entry per configured workload, never more. Thread-safe.
 */
public final class KeyTallies {

    private final Map<String, KeyTally> byWorkload = new ConcurrentHashMap<>();
    private final List<Consumer<KeyTally>> watchers = new CopyOnWriteArrayList<>();
    /** Makes adding a tally and adding a watcher exclusive, so that a watcher misses no tally and sees none twice. */
    private final ReentrantLock lock = new ReentrantLock();

    /** Adds the tally of its workload, telling those watching. */
    public void add(KeyTally tally) {
        lock.lock();
        try {
            byWorkload.put(tally.workload(), tally);
        } finally {
            lock.unlock();
        }
        watchers.forEach(watcher -> watcher.accept(tally));
    }

    /** The tally of {@code workload}, when it has fair shares. */
    public Optional<KeyTally> find(String workload) {
        return Optional.ofNullable(byWorkload.get(workload));
    }

    /** Gives {@code watcher} every tally added so far, then each added later. */
    public void watch(Consumer<KeyTally> watcher) {
        List<KeyTally> already;
        lock.lock();
        try {
            watchers.add(watcher);
            already = List.copyOf(byWorkload.values());
        } finally {
            lock.unlock();
        }
        already.forEach(watcher);
    }
}
