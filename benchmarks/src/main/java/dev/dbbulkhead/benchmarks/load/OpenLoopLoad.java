package dev.dbbulkhead.benchmarks.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Offers streams of calls, each on its own schedule, for a fixed window, then lets the calls still inside finish within a drain budget, then
 * interrupts whatever is left (a caller of a guard that waits without bound would otherwise never return) and
 * counts it as abandoned. Bounded in count (each stream's rate × window) and in time (window + drain + a join
 * budget).
 */
public final class OpenLoopLoad {

    private static final long GENERATOR_TICK_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
    private static final long SAMPLE_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final Duration JOIN_BUDGET = Duration.ofSeconds(10);

    private OpenLoopLoad() {
    }

    /**
     * @param streams     offered together
     * @param window      how long arrivals keep coming
     * @param drainBudget how long calls still inside may take to finish after the window
     * @param occupancy   where the calls report executing; sampled during the run
     * @return each stream's log, by name, in the order given
     */
    public static Map<String, CallLog> run(List<LoadStream> streams, Duration window, Duration drainBudget,
                                           Occupancy occupancy) throws InterruptedException {
        long windowNanos = window.toNanos();
        List<CallLog> logs = new ArrayList<>();
        for (LoadStream stream : streams) {
            logs.add(new CallLog(Math.toIntExact(stream.arrivals().within(window))));
        }
        List<Thread> callers = new ArrayList<>();
        int[] started = new int[streams.size()];
        RunClock clock = new RunClock();
        Thread sampler = Thread.ofPlatform().daemon().name("occupancy-sampler").start(() -> {
            while (!clock.over) {
                occupancy.sample(clock.elapsed());
                LockSupport.parkNanos(SAMPLE_PERIOD_NANOS);
            }
        });

        long elapsed;
        while ((elapsed = clock.elapsed()) < windowNanos) {
            for (int s = 0; s < streams.size(); s++) {
                LoadStream stream = streams.get(s);
                CallLog log = logs.get(s);
                long due = Math.min(log.capacity(), stream.arrivals().dueBy(elapsed));
                while (started[s] < due) {
                    callers.add(startCaller(stream.call(), log, started[s]++, clock, occupancy));
                }
            }
            LockSupport.parkNanos(GENERATOR_TICK_NANOS);
        }

        long drainDeadline = System.nanoTime() + drainBudget.toNanos();
        while (occupancy.inFlight() > 0 && System.nanoTime() < drainDeadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        clock.abandoned = true;
        for (Thread caller : callers) {
            if (caller.isAlive()) {
                caller.interrupt();
            }
        }
        long joinDeadline = System.nanoTime() + JOIN_BUDGET.toNanos();
        for (Thread caller : callers) {
            long left = joinDeadline - System.nanoTime();
            if (left > 0) {
                caller.join(Duration.ofNanos(left));
            }
        }
        clock.over = true;
        sampler.join();

        Map<String, CallLog> byName = new LinkedHashMap<>();
        for (int s = 0; s < streams.size(); s++) {
            logs.get(s).close(started[s]);
            byName.put(streams.get(s).name(), logs.get(s));
        }
        return byName;
    }

    private static Thread startCaller(LoadStream.Call call, CallLog log, int slot, RunClock clock,
                                      Occupancy occupancy) {
        return Thread.ofVirtual().start(() -> {
            long start = clock.elapsed();
            occupancy.arrived();
            Outcome outcome;
            Throwable failure = null;
            try {
                call.run();
                outcome = Outcome.COMMITTED;
            } catch (Throwable thrown) {
                outcome = Outcome.of(thrown);
                failure = thrown;
            } finally {
                occupancy.left();
            }
            long end = clock.elapsed();
            // Whatever a caller still inside at the end met (often the harness's own interrupt) is abandonment.
            Outcome counted = clock.abandoned ? Outcome.ABANDONED : outcome;
            if (counted == Outcome.FAILED) {
                log.failed(failure);
            }
            log.record(slot, start, end - start, counted, counted.isRefusal() ? RefusalReason.of(failure) : null);
        });
    }

    /** Time since the run began, and the run's phase, shared by generator, callers and sampler. */
    private static final class RunClock {
        private final long origin = System.nanoTime();
        private volatile boolean abandoned;
        private volatile boolean over;

        long elapsed() {
            return System.nanoTime() - origin;
        }
    }
}
