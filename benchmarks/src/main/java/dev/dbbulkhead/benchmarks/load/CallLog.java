package dev.dbbulkhead.benchmarks.load;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.Map;
import java.util.function.LongPredicate;

/**
 * What every call of one run did: when it started (nanoseconds after the run began), how long it took, how it
 * ended. Slot {@code i} belongs to call {@code i} alone, so callers write without coordination; the harness reads
 * only after every caller has ended or been given up on.
 */
public final class CallLog {

    private final long[] startNanos;
    private final long[] latencyNanos;
    private final Outcome[] outcomes;
    private final String[] refusalReasons;
    private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    private int offered;

    public CallLog(int capacity) {
        startNanos = new long[capacity];
        latencyNanos = new long[capacity];
        outcomes = new Outcome[capacity];
        refusalReasons = new String[capacity];
    }

    /** Most calls this log can hold. */
    public int capacity() {
        return outcomes.length;
    }

    void record(int call, long startedAtNanos, long latency, Outcome outcome, String refusalReason) {
        startNanos[call] = startedAtNanos;
        latencyNanos[call] = latency;
        outcomes[call] = outcome;
        refusalReasons[call] = refusalReason;
    }

    void failed(Throwable failure) {
        firstFailure.compareAndSet(null, failure);
    }

    /** The first call failure of an unexpected kind ({@link Outcome#FAILED}), to be named in the report; or null. */
    public Throwable firstFailure() {
        return firstFailure.get();
    }

    /** Marks every call that never recorded an outcome as abandoned; called once the run is over. */
    void close(int offeredCalls) {
        offered = offeredCalls;
        for (int call = 0; call < offeredCalls; call++) {
            if (outcomes[call] == null) {
                outcomes[call] = Outcome.ABANDONED;
            }
        }
    }

    /** Calls started. */
    public int offered() {
        return offered;
    }

    /** How many calls ended each way; every offered call is counted exactly once. */
    public Map<Outcome, Integer> counts() {
        Map<Outcome, Integer> counts = new EnumMap<>(Outcome.class);
        for (Outcome outcome : Outcome.values()) {
            counts.put(outcome, 0);
        }
        for (int call = 0; call < offered; call++) {
            counts.merge(outcomes[call], 1, Integer::sum);
        }
        return counts;
    }

    /**
     * How many calls were refused ({@link Outcome#REJECTED} or {@link Outcome#POOL_TIMEOUT}) for each
     * {@linkplain RefusalReason reason}, by name; adds up to those two counts.
     */
    public Map<String, Integer> refusalsByReason() {
        Map<String, Integer> byReason = new TreeMap<>();
        for (int call = 0; call < offered; call++) {
            if (outcomes[call].isRefusal()) {
                byReason.merge(refusalReasons[call], 1, Integer::sum);
            }
        }
        return byReason;
    }

    /** Latencies (ns) of the calls that ended one of the given ways. */
    public long[] latencies(Outcome... wanted) {
        return latencies(call -> true, wanted);
    }

    /** Latencies (ns) of the calls started in [from, to) ns that ended one of the given ways. */
    public long[] latenciesStartedBetween(long fromNanos, long toNanos, Outcome... wanted) {
        return latencies(call -> startNanos[(int) call] >= fromNanos && startNanos[(int) call] < toNanos, wanted);
    }

    /** Committed calls that ended in [from, to) ns and took at most {@code slo} ns; any latency when slo < 0. */
    public int committedEndingBetween(long fromNanos, long toNanos, long sloNanos) {
        int committed = 0;
        for (int call = 0; call < offered; call++) {
            long end = startNanos[call] + latencyNanos[call];
            if (outcomes[call] == Outcome.COMMITTED && end >= fromNanos && end < toNanos
                    && (sloNanos < 0 || latencyNanos[call] <= sloNanos)) {
                committed++;
            }
        }
        return committed;
    }

    private long[] latencies(LongPredicate callFilter, Outcome... wanted) {
        Set<Outcome> kept = EnumSet.noneOf(Outcome.class);
        kept.addAll(Arrays.asList(wanted));
        long[] selected = new long[offered];
        int count = 0;
        for (int call = 0; call < offered; call++) {
            Outcome outcome = outcomes[call];
            if (outcome != Outcome.ABANDONED && kept.contains(outcome) && callFilter.test(call)) {
                selected[count++] = latencyNanos[call];
            }
        }
        return Arrays.copyOf(selected, count);
    }
}
