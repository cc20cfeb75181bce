package dev.dbbulkhead.jdbc.ungated;

import dev.dbbulkhead.BulkheadRejectedException;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The runs of jobs — scheduled methods, message listeners, Quartz jobs, Batch steps — whose connection a gate refused,
 * by job: a scheduled run refused at its first connection has not started, and is skipped — never silently. Each job's first refusal is told to the {@link Listener} (which logs it once, with
 * the job's name); every one is counted. Memory is bounded: at most {@link #MAX_JOBS} jobs are kept by name, the
 * refusals of any further ones are counted together.
 */
public final class JobRefusals {

    /** The jobs kept by name; an application has far fewer scheduled methods, listeners and steps. */
    public static final int MAX_JOBS = 1_000;

    /** Told of each job's first refused run. */
    @FunctionalInterface
    public interface Listener {

        /** Nobody listens. */
        Listener NONE = (job, refusal) -> { };

        /**
         * A run of {@code job} was refused for the first time; called on the refused thread.
         *
         * @param job     the job as reports name it: {@code scheduled job com.example.Archive.run}
         * @param refusal why
         */
        void firstRefusal(String job, BulkheadRejectedException refusal);
    }

    private final Listener listener;
    private final Map<String, LongAdder> byJob = new ConcurrentHashMap<>();
    private final AtomicInteger places = new AtomicInteger();
    private final LongAdder otherJobs = new LongAdder();

    /** @param listener told of each job's first refused run */
    public JobRefusals(Listener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** Counts a refused run of {@code job}, telling the listener when it is the job's first. */
    void refused(String job, BulkheadRejectedException refusal) {
        LongAdder known = byJob.get(job);
        if (known != null) {
            known.increment();
            return;
        }
        if (places.incrementAndGet() > MAX_JOBS) {
            places.decrementAndGet();
            otherJobs.increment();
            return;
        }
        LongAdder first = new LongAdder();
        first.increment();
        LongAdder raced = byJob.putIfAbsent(job, first);
        if (raced != null) {
            places.decrementAndGet();
            raced.increment();
            return;
        }
        listener.firstRefusal(job, refusal);
    }

    /** The refused runs so far by job, in the order of the jobs' names; past {@link #MAX_JOBS}, under "other jobs". */
    public Map<String, Long> byJob() {
        Map<String, Long> counts = new TreeMap<>();
        byJob.forEach((job, count) -> counts.put(job, count.sum()));
        long others = otherJobs.sum();
        if (others > 0) {
            counts.put("other jobs", others);
        }
        return counts;
    }
}
