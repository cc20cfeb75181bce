package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The scheduler's targets over the whole {@link SchedulerFamily}, each member run twice on the same arrivals and places
 * — the real order and the {@link MaxMinOracle} — with every invariant of the gate and of the order asserted as it
 * runs. A failing target names the member's configuration and seed; {@code SchedulerFamily.member(seed)} rebuilds it.
 */
class SchedulerFamilyTests {

    static final int MEMBERS = 300;
    /** Below this many operations a ratio says more about chance than about the order. */
    static final int LEAST_COUNTED = 100;

    // What docs/benchmarks/scheduler-family.md reports, member by member: a ratchet, lowered as the order improves.
    static final int QUIET_MEMBERS_BELOW = 21;
    static final long EDGE_REFUSALS = 48;
    static final int EDGE_MEMBERS = 9;
    static final int HEAVY_MEMBERS_BELOW = 26;

    record Outcome(SchedulerFamily.Member member, MaxMinShares shares, SimulationResult real,
                   SimulationResult oracle) {
        SimulatedWorkload workload() {
            return member.workload();
        }
    }

    private static final List<Outcome> outcomes = new ArrayList<>();

    @BeforeAll
    static void runTheFamily() {
        for (long seed = 1; seed <= MEMBERS; seed++) {
            outcomes.add(run(SchedulerFamily.member(seed)));
        }
    }

    static Outcome run(SchedulerFamily.Member member) {
        SimulatedWorkload workload = member.workload();
        MaxMinShares shares = new MaxMinShares(workload.flows(), workload.capacityPerSecond());
        SimulationResult real = SchedulerSimulation.run(workload,
                new SchedulerOrder(workload.flows(), workload.rules()), shares, true);
        SimulationResult oracle = SchedulerSimulation.run(workload, new MaxMinOracle(workload.flows(), shares,
                workload.rules().inProgressFirst()),
                shares, false);
        return new Outcome(member, shares, real, oracle);
    }

    @Test
    void acrossTheFamilyFlowsUnderTheirShareAreServedAsTheOracleServesThem() {
        long real = 0;
        long oracle = 0;
        for (Outcome outcome : outcomes) {
            for (int f = 0; f < outcome.workload().flows().size(); f++) {
                if (outcome.shares().clearlyUnder(f)) {
                    real += outcome.real().served[f];
                    oracle += outcome.oracle().served[f];
                }
            }
        }
        System.out.printf("quiet flows served over the family: %d against the oracle's %d (%.4f)%n", real, oracle,
                (double) real / oracle);
        assertThat((double) real / oracle).isGreaterThanOrEqualTo(0.97);
    }

    /**
     * Member by member the target is not met (docs/reference/scheduling-guarantee.md says where and why): the members
     * below it are never more than the page reports, so that a change to the order that serves quiet flows worse
     * fails here.
     */
    @Test
    void membersWhereFlowsUnderTheirShareGetLessThanTheOracleGivesThemAreNoMoreThanThePageReports() {
        List<String> failures = new ArrayList<>();
        Tally tally = new Tally();
        for (Outcome outcome : outcomes) {
            long real = 0;
            long oracle = 0;
            for (int f = 0; f < outcome.workload().flows().size(); f++) {
                if (outcome.shares().clearlyUnder(f)) {
                    real += outcome.real().served[f];
                    oracle += outcome.oracle().served[f];
                }
            }
            if (oracle < LEAST_COUNTED) {
                continue;
            }
            double ratio = (double) real / oracle;
            boolean missed = ratio < 0.97;
            tally.member(outcome, ratio, missed);
            if (missed) {
                failures.add(String.format("quiet flows served %d against the oracle's %d (%.3f); %s", real, oracle,
                        ratio, outcome.workload().describe()));
            }
        }
        tally.report("quiet flows served ÷ oracle's");
        failures.forEach(System.out::println);
        assertThat(failures).as("members where flows under their share got < 97 %% of the oracle's")
                .hasSizeLessThanOrEqualTo(QUIET_MEMBERS_BELOW);
    }

    /**
     * Not met: at equal use, and for a burst's later operations, the order cannot tell a flow under its share from
     * one over it (docs/reference/scheduling-guarantee.md). The refusals of flows under their share at a full queue
     * while a flow over its share held a waiting place are never more than the page reports.
     */
    @Test
    void refusalsOfFlowsUnderTheirShareAtAFullQueueAreNoMoreThanThePageReports() {
        List<String> failures = new ArrayList<>();
        long refusals = 0;
        for (Outcome outcome : outcomes) {
            refusals += outcome.real().edgeViolationCount;
            if (outcome.real().edgeViolationCount > 0) {
                failures.add(outcome.real().edgeViolationCount + " times, first " + outcome.real().edgeViolations
                        + "; " + outcome.workload().describe());
            }
        }
        failures.forEach(System.out::println);
        System.out.printf("refusals at the edge while a flow over its share waited: %d in %d members%n", refusals,
                failures.size());
        assertThat(refusals).isLessThanOrEqualTo(EDGE_REFUSALS);
        assertThat(failures).hasSizeLessThanOrEqualTo(EDGE_MEMBERS);
    }

    @Test
    void acrossTheFamilyHeavyFlowsGetTheirShareOfWhatThePlacesServed() {
        double served = 0;
        double share = 0;
        for (Outcome outcome : outcomes) {
            SimulationResult real = outcome.real();
            MaxMinShares ofDelivered = delivered(outcome);
            for (int f = 0; f < outcome.workload().flows().size(); f++) {
                if (outcome.shares().clearlyOver(f)) {
                    served += real.served[f];
                    share += ofDelivered.of(f) * real.measuredSeconds;
                }
            }
        }
        System.out.printf("heavy flows served over the family: %.0f against shares of %.0f (%.4f)%n", served, share,
                served / share);
        assertThat(served / share).isGreaterThanOrEqualTo(0.9);
    }

    /** Each flow's max-min share of what the real run's places served (the capacity no order can add to). */
    private static MaxMinShares delivered(Outcome outcome) {
        double delivered = 0;
        for (long served : outcome.real().served) {
            delivered += served;
        }
        return new MaxMinShares(outcome.workload().flows(), delivered / outcome.real().measuredSeconds);
    }

    /**
     * A heavy flow's share of what the real run's places served, in operations; {@code NaN} for a flow that is not
     * clearly over its share, or whose share is too small to judge.
     */
    private static double heavyShare(Outcome outcome, MaxMinShares ofDelivered, int flow) {
        double share = ofDelivered.of(flow) * outcome.real().measuredSeconds;
        return outcome.shares().clearlyOver(flow) && share >= LEAST_COUNTED ? share : Double.NaN;
    }

    /**
     * The least any heavy flow got of its share of what the real run's places served, in {@code run} (the order's or
     * the oracle's on the same arrivals); {@code NaN} for a member without a heavy flow to judge.
     */
    private static double leastHeavyServed(Outcome outcome, SimulationResult run) {
        MaxMinShares ofDelivered = delivered(outcome);
        double least = Double.NaN;
        for (int f = 0; f < outcome.workload().flows().size(); f++) {
            double share = heavyShare(outcome, ofDelivered, f);
            if (!Double.isNaN(share)) {
                least = Double.isNaN(least) ? run.served[f] / share : Math.min(least, run.served[f] / share);
            }
        }
        return least;
    }

    /** Member by member not met, as the page reports: the members below never grow in number. */
    @Test
    void membersWhereAHeavyFlowGetsLessThanNineTenthsOfItsShareAreNoMoreThanThePageReports() {
        List<String> failures = new ArrayList<>();
        Tally tally = new Tally();
        for (Outcome outcome : outcomes) {
            SimulatedWorkload workload = outcome.workload();
            SimulationResult real = outcome.real();
            MaxMinShares ofDelivered = delivered(outcome);
            double least = Double.MAX_VALUE;
            for (int f = 0; f < workload.flows().size(); f++) {
                double share = heavyShare(outcome, ofDelivered, f);
                if (Double.isNaN(share)) {
                    continue;
                }
                double ratio = real.served[f] / share;
                least = Math.min(least, ratio);
                if (ratio < 0.9) {
                    failures.add(String.format("flow %s served %d against a share of %.0f (%.3f); %s",
                            workload.flows().get(f).key(), real.served[f], share, ratio, workload.describe()));
                }
            }
            if (least != Double.MAX_VALUE) {
                tally.member(outcome, least, least < 0.9);
            }
        }
        tally.report("heavy flows served ÷ max-min share");
        failures.forEach(System.out::println);
        assertThat(tally.membersBelow()).hasSizeLessThanOrEqualTo(HEAVY_MEMBERS_BELOW);
    }

    /**
     * Where a heavy flow gets less than nine tenths of its share, the member's conditions deny it, not the order: the
     * order's least-served heavy flow gets at least nine tenths of what the oracle gives its own least-served one (up to
     * its whole share), in every member with heavy flows. Max-min fairness is judged by the least served; the oracle
     * runs on the same arrivals, operation times and places.
     */
    @Test
    void memberByMemberTheLeastServedHeavyFlowGetsNineTenthsOfWhatTheOracleGivesItsLeastServed() {
        List<String> failures = new ArrayList<>();
        Tally tally = new Tally();
        int oracleBelowShare = 0;
        for (Outcome outcome : outcomes) {
            double realLeast = leastHeavyServed(outcome, outcome.real());
            double oracleLeast = leastHeavyServed(outcome, outcome.oracle());
            if (Double.isNaN(realLeast)) {
                continue;
            }
            oracleBelowShare += oracleLeast < 0.9 ? 1 : 0;
            double bound = Math.min(1.0, oracleLeast);
            boolean missed = realLeast < 0.9 * bound;
            // Nothing is owed where the oracle serves a heavy flow nothing.
            tally.member(outcome, bound > 0 ? realLeast / bound : 1.0, missed);
            if (missed) {
                failures.add(String.format("least heavy flow %.3f of its share, the oracle's %.3f; %s", realLeast,
                        oracleLeast, outcome.workload().describe()));
            }
        }
        tally.report("least-served heavy flow ÷ the oracle's least-served (its share at most)");
        System.out.printf("members where the oracle too serves a heavy flow below 0.9 of its share: %d%n",
                oracleBelowShare);
        assertThat(failures).isEmpty();
    }

    @Test
    void placesStayBusyWhileWorkWaits() {
        Tally tally = new Tally();
        List<String> failures = new ArrayList<>();
        for (Outcome outcome : outcomes) {
            double busy = outcome.real().busyWhileWaiting();
            boolean missed = busy < 0.95;
            tally.member(outcome, busy, missed);
            if (missed) {
                failures.add(String.format("busy %.3f; %s", busy, outcome.workload().describe()));
            }
        }
        tally.report("places busy while work waits");
        assertThat(failures).isEmpty();
    }

    /**
     * A target's figures by dimension of the family, as docs/benchmarks/scheduler-family.md shows them: the least value
     * of a member with that dimension, and how many such members miss the target.
     */
    private static final class Tally {
        private final Map<String, Double> least = new TreeMap<>();
        private final Map<String, Integer> below = new TreeMap<>();
        private final List<Long> membersBelow = new ArrayList<>();

        void member(Outcome outcome, double value, boolean missed) {
            for (Map.Entry<String, String> dimension : outcome.member().dimensions().entrySet()) {
                String name = dimension.getKey() + " = " + dimension.getValue();
                least.merge(name, value, Math::min);
                below.merge(name, missed ? 1 : 0, Integer::sum);
            }
            if (missed) {
                membersBelow.add(outcome.workload().seed());
            }
        }

        List<Long> membersBelow() {
            return membersBelow;
        }

        void report(String what) {
            StringBuilder text = new StringBuilder(what).append(" over ").append(outcomes.size())
                    .append(" members, least and members below the target (").append(membersBelow.size())
                    .append(" in all):");
            least.forEach((dimension, value) -> text.append(String.format("%n  %-50s %.3f %3d", dimension, value,
                    below.get(dimension))));
            System.out.println(text);
        }
    }
}
