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
 * its connection 5, 50 or 400 ms on average (from half to one and a half times, drawn each call), and waits at most
 * 0.5, 1 or 10 × that in the queue. A corner runs long enough for each quiet tenant to offer about
 * {@value #QUIET_CALLS_EACH} calls, the capacity it is sized by measured first at its operation time.
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
    static final Duration POOL_TIMEOUT = Duration.ofSeconds(2);

    private TenantCornersRun() {
    }

    /**
     * One corner.
     *
     * @param capacity commits/s a gate of B without rules served offered 3 × B / hold: what the tenants are sized by
     */
    public record Corner(Duration hold, double waitOverHold, double capacity, GateCase.Result run) {

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

    public static Result run(boolean quick) throws Exception {
        Instant began = Instant.now();
        BenchDatabase database = BenchDatabase.create();
        List<Corner> corners = new ArrayList<>();
        for (Duration hold : quick ? HOLDS.subList(0, 1) : HOLDS) {
            Duration capacityWindow = quick ? Duration.ofMillis(300) : CAPACITY_WINDOW;
            double capacity = capacity(database, hold, capacityWindow);
            for (double waitOverHold : quick ? WAITS_OVER_HOLD.subList(0, 1) : WAITS_OVER_HOLD) {
                corners.add(corner(database, hold, waitOverHold, capacity, quick));
            }
        }
        return new Result(corners, began, Instant.now());
    }

    /** What a gate of B without rules serves when offered 3 × what B places of {@code hold} would. */
    private static double capacity(BenchDatabase database, Duration hold, Duration window) throws Exception {
        double nominal = MAX_CONCURRENT * 1e9 / hold.toNanos();
        Budget budget = new Budget(MAX_CONCURRENT, MAX_QUEUED, hold);
        GateCase.Result saturated = GateCase.run(database, "capacity-" + hold.toMillis() + "ms", MAX_CONCURRENT,
                budget, AdmissionRules.none(), GateCase.flowsOfVaryingHold(List.of(new GateCase.Flow("capacity",
                        Arrivals.poisson(SchedulerRun.OVERLOAD_FACTOR * nominal, 1), Criticality.DEFAULT,
                        "capacity")), hold), window, POOL_TIMEOUT);
        return saturated.goodput();
    }

    private static Corner corner(BenchDatabase database, Duration hold, double waitOverHold, double capacity,
                                 boolean quick) throws Exception {
        double quietTogether = SchedulerRun.OVERLOAD_FACTOR * capacity / (SchedulerRun.NOISY_OVER_OTHERS + 1);
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
                GateCase.flowsOfVaryingHold(flows, hold), window, POOL_TIMEOUT);
        return new Corner(hold, waitOverHold, capacity, run);
    }

    /** A tenant's Poisson stream: its own seed, so that every build measured meets the same arrivals. */
    private static GateCase.Flow poisson(String key, double perSecond, long seed) {
        return new GateCase.Flow(key, Arrivals.poisson(perSecond, seed), Criticality.DEFAULT, key);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
