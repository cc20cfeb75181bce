package dev.dbbulkhead.benchmarks.scheduler;

import dev.dbbulkhead.benchmarks.load.Arrivals;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.Budget;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The ten tenants of the scheduler run's first case at the corners of operation time and queue wait, on real
 * PostgreSQL, with the multi-tenant how-to's workload (B = 8, Q = 16, fair shares): {@code tenant-0} offers 10 × the
 * nine others together, 3 × the capacity in all, every tenant's calls arriving as a Poisson process; each call holds
 * its connection 5, 50 or 400 ms on average, and waits at most 0.5, 1 or 10 × that in the queue. A call's
 * {@code pg_sleep} is drawn each call from half to one and a half times a mean {@linkplain #calibrate calibrated} so
 * that the place is held the operation's time as the gate times it: the UPDATE, the commit and the hand-back take
 * time of their own, most where the machine is saturated (1 to 2 ms a call at 5 ms here), and a queue wait of half
 * a 5 ms operation must be half of what a waiter actually waits for. A corner runs long enough for each quiet tenant
 * to offer about {@value #QUIET_CALLS_EACH} calls, the capacity it is sized by measured at its operation time.
 */
public final class TenantCornersRun {

    static final int MAX_CONCURRENT = 8;
    static final int MAX_QUEUED = 16;
    static final List<Duration> HOLDS = List.of(Duration.ofMillis(5), Duration.ofMillis(50), Duration.ofMillis(400));
    static final List<Double> WAITS_OVER_HOLD = List.of(0.5, 1.0, 10.0);
    static final double QUIET_TARGET = 0.95;
    static final int QUIET_CALLS_EACH = 100;
    static final Duration LEAST_WINDOW = Duration.ofSeconds(10);
    static final Duration CAPACITY_WINDOW = Duration.ofSeconds(5);
    /**
     * A calibration round lasts at least this many operations of each place: holds drawn from half to one and a half
     * times a mean spread by ± 29 %, and 8 × 50 of them put the mean within about 1.5 %, inside the tolerance.
     */
    static final int CALIBRATION_HOLDS_EACH = 50;
    static final Duration POOL_TIMEOUT = Duration.ofSeconds(2);
    /** How far the calibrated hold may lie from the operation's time. */
    static final double HOLD_TOLERANCE = 0.03;
    static final int CALIBRATION_ROUNDS = 4;

    private TenantCornersRun() {
    }

    /**
     * One corner.
     *
     * @param hold        the operation's time: the mean hold of a place the calibration aimed at
     * @param calibration the sleep that holds a place that long, and the capacity then
     */
    public record Corner(Duration hold, double waitOverHold, Calibration calibration, GateCase.Result run) {

        /** The least successful of the nine quiet tenants. */
        GateCase.StreamResult leastQuiet() {
            return run.streams().stream().filter(stream -> !stream.name().equals(SchedulerRun.noisyTenant()))
                    .min(Comparator.comparingDouble(GateCase.StreamResult::success)).orElseThrow();
        }

        boolean met() {
            return leastQuiet().success() >= QUIET_TARGET;
        }
    }

    public record Result(List<Corner> corners, Instant began, Instant ended) {
    }

    /**
     * @param sleep    the mean {@code pg_sleep} of a call
     * @param held     the mean hold of a place it gave, admission to release, with a gate of B saturated
     * @param capacity commits/s that gate served, offered 3 × B / the operation's time: what the tenants are sized by
     */
    public record Calibration(Duration sleep, Duration held, double capacity) {
    }

    public static Result run(boolean quick) throws Exception {
        Instant began = Instant.now();
        BenchDatabase database = BenchDatabase.create();
        List<Corner> corners = new ArrayList<>();
        for (Duration hold : quick ? HOLDS.subList(0, 1) : HOLDS) {
            Duration capacityWindow = quick ? Duration.ofMillis(300)
                    : max(CAPACITY_WINDOW, hold.multipliedBy(CALIBRATION_HOLDS_EACH));
            Calibration calibration = calibrate(database, hold, capacityWindow);
            for (double waitOverHold : quick ? WAITS_OVER_HOLD.subList(0, 1) : WAITS_OVER_HOLD) {
                corners.add(corner(database, hold, waitOverHold, calibration, quick));
            }
        }
        return new Result(corners, began, Instant.now());
    }

    /**
     * The mean sleep whose calls hold a place {@code hold} on average with a gate of B without rules saturated (offered
     * 3 × what B places of {@code hold} serve): each round keeps what the last measured beside the sleep — the
     * statements, the commit, the hand-back — and sleeps that much less (or more), by at most half or twice the sleep
     * in one round, as a round of a JVM still warming up measures more beside the sleep than the corners will meet;
     * until the hold lies within {@value #HOLD_TOLERANCE} of the operation's time or the rounds run out. The report
     * shows the hold each corner met, so a calibration that did not settle is seen, not hidden.
     */
    static Calibration calibrate(BenchDatabase database, Duration hold, Duration window) throws Exception {
        Duration sleep = hold;
        Calibration measured = saturate(database, hold, sleep, window);
        for (int round = 1; round < CALIBRATION_ROUNDS; round++) {
            Duration off = measured.held().minus(hold);
            if (Math.abs(off.toNanos()) <= HOLD_TOLERANCE * hold.toNanos()) {
                break;
            }
            sleep = Duration.ofNanos(Math.clamp(sleep.minus(off).toNanos(), sleep.toNanos() / 2, sleep.toNanos() * 2));
            measured = saturate(database, hold, sleep, window);
        }
        return measured;
    }

    /** A gate of B without rules offered 3 × what B places of {@code hold} serve, calls sleeping {@code sleep}. */
    private static Calibration saturate(BenchDatabase database, Duration hold, Duration sleep, Duration window)
            throws Exception {
        double nominal = MAX_CONCURRENT * 1e9 / hold.toNanos();
        Budget budget = new Budget(MAX_CONCURRENT, MAX_QUEUED, hold);
        GateCase.Result saturated = GateCase.run(database, "capacity-" + hold.toMillis() + "ms", MAX_CONCURRENT,
                budget, AdmissionRules.none(), GateCase.flowsOfVaryingHold(List.of(new GateCase.Flow("capacity",
                        Arrivals.poisson(SchedulerRun.OVERLOAD_FACTOR * nominal, 1), Criticality.DEFAULT,
                        "capacity")), sleep), window, POOL_TIMEOUT);
        return new Calibration(sleep, saturated.meanHold(), saturated.goodput());
    }

    private static Corner corner(BenchDatabase database, Duration hold, double waitOverHold, Calibration calibration,
                                 boolean quick) throws Exception {
        double quietTogether = SchedulerRun.OVERLOAD_FACTOR * calibration.capacity()
                / (SchedulerRun.NOISY_OVER_OTHERS + 1);
        double quietEach = quietTogether / (SchedulerRun.TENANT_COUNT - 1);
        List<GateCase.Flow> flows = new ArrayList<>();
        flows.add(poisson(SchedulerRun.noisyTenant(), SchedulerRun.NOISY_OVER_OTHERS * quietTogether, 0));
        for (int t = 1; t < SchedulerRun.TENANT_COUNT; t++) {
            flows.add(poisson("tenant-" + t, quietEach, t));
        }
        Duration queueWait = Duration.ofNanos((long) (waitOverHold * hold.toNanos()));
        Duration window = quick ? Duration.ofMillis(400)
                : max(LEAST_WINDOW, Duration.ofNanos((long) (QUIET_CALLS_EACH * 1e9 / quietEach)));
        String name = "corner-" + hold.toMillis() + "ms-wait-" + waitOverHold + "x";
        GateCase.Result run = GateCase.run(database, name, MAX_CONCURRENT,
                new Budget(MAX_CONCURRENT, MAX_QUEUED, queueWait), SchedulerRun.FAIR_SHARES,
                GateCase.flowsOfVaryingHold(flows, calibration.sleep()), window, POOL_TIMEOUT);
        return new Corner(hold, waitOverHold, calibration, run);
    }

    /** A tenant's Poisson stream: its own seed, so that every build measured meets the same arrivals. */
    private static GateCase.Flow poisson(String key, double perSecond, long seed) {
        return new GateCase.Flow(key, Arrivals.poisson(perSecond, seed), Criticality.DEFAULT, key);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
