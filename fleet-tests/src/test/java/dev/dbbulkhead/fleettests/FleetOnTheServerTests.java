package dev.dbbulkhead.fleettests;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Fleet coordination proven from the server's side. Instances of a Spring Boot application, each in a JVM of its
 * own and loaded so that its pool always wants every connection it may have, share a budget of
 * {@value Fleet#BUDGET} connections on a PostgreSQL the test starts; a sampler counts their sessions in
 * {@code pg_stat_activity} every 50 ms. The scenarios run in order on one fleet, each from three instances at the
 * fair split (6/6/6), and each judges every sample it took: Σ of the instances' member sessions ≤ the budget + the
 * floor ({@value Fleet#FLOOR}) × the scenario's allowance, the number of instances that may be running unleased at
 * once in it (rejoining after a fault, or leaving; a starting instance joins before its start-up opens a
 * connection), as docs/reference/fleet.md counts them outside the budget.
 * While a member is stopped (SIGSTOP) nobody runs unleased, so every sample from the stop until the others hold its
 * share must show at most the budget itself.
 * The scenarios' figures go to {@code target/fleet-figures.md}; every sample they judged to
 * {@code target/fleet-tests/samples.txt}, the instances' logs and the server's next to it.
 *
 * <p>Waits are bounded (a fair split within {@link #SETTLE}, an instance's start within {@link #START}) only so that
 * a hang fails: how long things took is reported as figures, never asserted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FleetOnTheServerTests {

    /** Generous: the shares settle within a few heartbeats, but a loaded 2-core machine may starve a member. */
    private static final Duration SETTLE = Duration.ofSeconds(20);
    /** A JVM's start on a loaded machine, and its join. */
    private static final Duration START = Duration.ofSeconds(60);
    private static final int FAIR_OF_THREE = Fleet.BUDGET / Fleet.BASELINE;

    private Fleet fleet;
    private Figures figures;

    @BeforeAll
    void startTheServer() {
        fleet = new Fleet(Path.of(System.getProperty("fleet.tests.directory", "target/fleet-tests")));
        figures = new Figures("Instances with a HikariCP pool of " + Fleet.POOL_SIZE + " (minimum-idle "
                + Fleet.POOL_SIZE + ") and one workload of B = " + Fleet.POOL_SIZE + ", each loaded by 16 callers"
                + " running `SELECT pg_sleep(0.02)` in a closed loop; budget " + Fleet.BUDGET + ", floor "
                + Fleet.FLOOR + ", heartbeat " + Fleet.HEARTBEAT.toMillis() + " ms, lease ttl "
                + Fleet.LEASE_TTL.toSeconds() + " s; `pg_stat_activity` and the fleet table sampled every 50 ms."
                + " Σ member connections counts the instances' application pools' sessions on the server (each"
                + " coordinator's own connection apart); the bound is the budget + the floor × the instances the"
                + " scenario lets run unleased at once. Times are from the event to the first sample showing it.");
    }

    @AfterAll
    void stopEverything() {
        try {
            figures.write(Path.of(System.getProperty("fleet.tests.figures", "target/fleet-figures.md")));
        } finally {
            fleet.close();
        }
    }

    @Test
    @Order(0)
    void threeInstancesStartingAtOnceOpenNoMoreThanTheBudgetStartUpIncluded() {
        run("three instances start at once", 0, "none: each joins before its start-up opens a connection", false, scenario -> {
            long started = System.nanoTime();
            List<Instance> instances = fleet.start(Fleet.BASELINE);
            scenario.awaitFairSplit("6/6/6", instances, started, START);
            noteMostSessionsBeforeFirstGrant(scenario, instances, started);
        });
    }

    @Test
    @Order(1)
    void aSteadyFleetStaysAtItsGrantsOnTheServer() {
        run("a. steady state", 0, "none", true, scenario -> {
            long from = System.nanoTime();
            lastFor(Duration.ofSeconds(3), from);
            List<Instance> live = fleet.live();
            List<Sample> samples = scenario.samples(from, System.nanoTime());
            scenario.check("the grants stay at the fair split", samples, Fleet.fairSplitOf(live).negate());
            scenario.check("no instance holds more sessions than its grant", samples, sample -> live.stream()
                    .anyMatch(instance -> sample.memberConnections(instance.name())
                            > sample.unexpiredLease(instance.name()).map(Sample.Lease::granted).orElse(0)));
        });
    }

    @Test
    @Order(2)
    void aKilledInstancesShareGoesToTheOthersAndComesBackWhenItStartsAgain() {
        run("b. kill -9 one, then start it again", 0,
                "none: the instance started again joins before its start-up opens a connection", true,
                scenario -> {
                    Instance victim = fleet.live().getFirst();
                    List<Instance> survivors = fleet.liveBut(victim);
                    long killed = System.nanoTime();
                    victim.kill();
                    scenario.awaitFairSplit("9/9 after the kill", survivors, killed, SETTLE);
                    long split = System.nanoTime();
                    scenario.reportTimeToFence("kill", victim, killed, split);
                    scenario.checkNoShareGivenAwayBeforeFencing(victim, survivors, FAIR_OF_THREE, killed, split);
                    long restarted = System.nanoTime();
                    List<Instance> again = fleet.start(1);
                    scenario.awaitFairSplit("6/6/6 after the start (JVM start included)", fleet.live(), restarted,
                            START);
                    noteMostSessionsBeforeFirstGrant(scenario, again, restarted);
                });
    }

    @Test
    @Order(3)
    void aPausedInstanceIsFencedBeforeTheOthersGrowIntoItsShare() {
        run("c. SIGSTOP one for 2 × ttl, then SIGCONT", 1, "the resumed instance, rejoining on its floor", true,
                scenario -> faultFor(scenario, "SIGSTOP", Fleet.LEASE_TTL.multipliedBy(2), paused -> {
                    long stopped = System.nanoTime();
                    fleet.pause(paused);
                    return stopped;
                }, fleet::resume, "SIGCONT", (paused, others, from, to) -> checkWithinBudgetWhileStopped(scenario,
                        paused, from, to)));
    }

    @Test
    @Order(4)
    void anInstanceFrozenWhileItsRenewalHoldsTheTableLockLeavesTheOthersLeasesRenewed() {
        run("d. SIGSTOP one inside its renewal (holding the table lock) for 2 × ttl", 1,
                "the resumed instance, rejoining on its floor", true,
                scenario -> faultFor(scenario, "frozen in its renewal", Fleet.LEASE_TTL.multipliedBy(2), frozen -> {
                    RenewalFreeze.Caught caught = RenewalFreeze.freeze(fleet, frozen, 40, Duration.ofSeconds(30));
                    scenario.note("caught in its renewal at attempt " + caught.attempts() + ": " + caught.outcome());
                    return caught.at();
                }, fleet::resume, "SIGCONT", (frozen, others, from, to) -> {
                    List<Sample> window = scenario.samples(from, to);
                    scenario.check("another member's lease expired while the renewal was frozen", window,
                            sample -> others.stream()
                                    .anyMatch(other -> sample.unexpiredLease(other.name()).isEmpty()));
                    others.forEach(other -> checkLeaseRenewed(scenario, other, window));
                    checkWithinBudgetWhileStopped(scenario, frozen, from, to);
                }));
    }

    @Test
    @Order(5)
    void aJoinShrinksTheOldMembersWithoutDroppingTheSessionsTheyStillMayHold() {
        run("e. a fourth instance joins", 0, "none: the newcomer joins before its start-up opens a connection", true, scenario -> {
            List<Instance> old = fleet.live();
            long joined = System.nanoTime();
            fleet.start(1);
            Sample split = scenario.awaitFairSplit("5/5/4/4", fleet.live(), joined, START);
            lastFor(Duration.ofSeconds(1), split.at());
            Map<String, Integer> newShare = byName(old,
                    instance -> split.unexpiredLease(instance.name()).orElseThrow().granted());
            List<Sample> shrink = scenario.samples(joined, System.nanoTime());
            Map<String, Integer> fewest = byName(old, instance -> shrink.stream()
                    .mapToInt(sample -> sample.memberConnections(instance.name())).min().orElse(-1));
            scenario.note("old members' fewest sessions during the shrink " + fewest + ", their new shares "
                    + newShare);
            scenario.check("an old member held fewer sessions than its new share", shrink, sample -> old.stream()
                    .anyMatch(instance -> sample.memberConnections(instance.name()) < newShare.get(instance.name())));
        });
    }

    @Test
    @Order(6)
    void aCleanLeaveIsLoggedAndGivesItsShareBackAtOnce() {
        run("f. one leaves cleanly (SIGTERM)", 1, "the leaving instance's floor, until its pool closes", false,
                scenario -> {
                    List<Instance> live = fleet.live();
                    Instance leaving = live.getLast();
                    List<Instance> staying = fleet.liveBut(leaving);
                    fleet.awaitFairSplit(live, System.nanoTime(), SETTLE);
                    long terminated = System.nanoTime();
                    if (!leaving.terminate()) {
                        scenario.violation(leaving + " did not exit on SIGTERM; killed");
                    }
                    long exited = System.nanoTime();
                    scenario.note("exited " + Scenario.seconds(exited - terminated) + " after SIGTERM");
                    if (!leaving.logged("left the fleet")) {
                        scenario.violation(leaving + "'s log has no \"left the fleet\" line; it ends with:\n"
                                + leaving.logTail(6));
                    }
                    scenario.awaitFairSplit("6/6/6 after the leave", staying, terminated, SETTLE);
                    scenario.check(leaving.name() + "'s lease still held after it exited",
                            scenario.samples(exited, System.nanoTime()),
                            sample -> sample.unexpiredLease(leaving.name()).isPresent());
                });
    }

    @Test
    @Order(7)
    void aDatabaseRestartKeepsTheBudgetAndTheFairSplitReturns() {
        run("g. the database restarts, down for 2 × ttl", 1,
                "a member re-granted last runs on its floor while the others hold all", true, scenario -> {
                    long stopping = System.nanoTime();
                    // Longer than the leases: every member falls to its floor and is granted its share again.
                    fleet.restartDatabase(Fleet.LEASE_TTL.multipliedBy(2));
                    long back = System.nanoTime();
                    scenario.note("server down and up again in " + Scenario.seconds(back - stopping));
                    Sample split = scenario.awaitFairSplit("6/6/6 after the restart", fleet.live(), back, SETTLE);
                    Sample filled = fleet.awaitPoolsFilled(fleet.live(), split.at(), SETTLE);
                    scenario.note("every pool back at its grant " + Scenario.seconds(filled.at() - back)
                            + " after the restart");
                });
    }

    @Test
    @Order(8)
    void twoInstancesStartingAtOnceStayWithinTheBudgetAndLeaveOnTheirFloors() {
        run("h. two more instances start at once, then leave", 2,
                "the two leaving instances' floors, until their pools close", true,
                scenario -> {
                    long started = System.nanoTime();
                    List<Instance> newcomers = fleet.start(2);
                    scenario.awaitFairSplit("4/4/4/3/3", fleet.live(), started, START);
                    noteMostSessionsBeforeFirstGrant(scenario, newcomers, started);
                    long leaving = System.nanoTime();
                    newcomers.forEach(Instance::terminate);
                    scenario.awaitFairSplit("6/6/6 after both left", fleet.live(), leaving, SETTLE);
                });
    }

    @Test
    @Order(9)
    void aMemberCutOffFromTheDatabaseIsFencedBeforeTheOthersGrowIntoItsShare() {
        run("i. one cut off from the database for 3 × ttl, then healed", 1,
                "the healed instance, rejoining on its floor", true,
                scenario -> faultFor(scenario, "cut", Fleet.LEASE_TTL.multipliedBy(3), cut -> {
                    long cutAt = System.nanoTime();
                    cut.proxy().cut();
                    return cutAt;
                }, cut -> cut.proxy().heal(), "healing", FaultChecks.NONE));
    }

    @Test
    @Order(10)
    void aKilledMemberOfALargeFleetKeepsItsShareOnlyUntilItsLongerLeaseExpires() {
        run("j. four more start (seven in all), kill -9 one, then the three others leave", 3,
                "the three leaving instances' floors, until their pools close", true, scenario -> {
                    long started = System.nanoTime();
                    List<Instance> newcomers = fleet.start(4);
                    scenario.awaitFairSplit("3/3/3/3/2/2/2", fleet.live(), started, START);
                    Instance victim = newcomers.getFirst();
                    List<Instance> survivors = fleet.liveBut(victim);
                    int shareBefore = Fleet.BUDGET / (survivors.size() + 1) + 1;
                    long killed = System.nanoTime();
                    victim.kill();
                    // A fleet of seven renews seldom: the dead member's lease is seven ttls long.
                    scenario.awaitFairSplit("3/3/3/3/3/3 after the kill", survivors, killed,
                            Fleet.LEASE_TTL.multipliedBy(7).plus(SETTLE));
                    long split = System.nanoTime();
                    scenario.reportTimeToFence("kill in a fleet of seven", victim, killed, split);
                    scenario.checkNoShareGivenAwayBeforeFencing(victim, survivors, shareBefore, killed, split);
                    long leaving = System.nanoTime();
                    newcomers.subList(1, newcomers.size()).forEach(Instance::terminate);
                    scenario.awaitFairSplit("6/6/6 after three left", fleet.live(), leaving, SETTLE);
                });
    }

    /**
     * Faults the oldest live instance for {@code length} and lets it go again. Judged on the samples of the fault: how
     * long the faulted instance's sessions stayed on the server, that no one was granted its share while they did,
     * whether the others reached their fair split meanwhile, and the scenario's own {@code checks}; then the fleet
     * must return to its fair split.
     *
     * @param inject    applies the fault; returns when it began ({@link System#nanoTime()})
     * @param recover   ends it
     * @param recovered how it ended, for the figures
     */
    private void faultFor(Scenario scenario, String what, Duration length, Fault inject, Consumer<Instance> recover,
                          String recovered, FaultChecks checks) throws Exception {
        Instance faulted = fleet.live().getFirst();
        List<Instance> others = fleet.liveBut(faulted);
        long fault = inject.apply(faulted);
        long end;
        try {
            lastFor(length, fault);
            // Held until the others have taken the faulted member's share, so that the fault's samples always
            // include the fence and the growth after it, however slowly a loaded machine got there.
            fleet.awaitFairSplit(others, fault, SETTLE);
        } finally {
            end = System.nanoTime();
            recover.accept(faulted);
        }
        checks.check(faulted, others, fault, end);
        scenario.reportTimeToFence(what, faulted, fault, end);
        scenario.checkNoShareGivenAwayBeforeFencing(faulted, others, FAIR_OF_THREE, fault, end);
        scenario.samples(fault, end).stream().filter(Fleet.fairSplitOf(others)).findFirst().ifPresentOrElse(
                split -> scenario.note("the others at 9/9 " + Scenario.seconds(split.at() - fault) + " after the fault"),
                () -> scenario.note("the others not at 9/9 before the fault ended"));
        scenario.awaitFairSplit("6/6/6 after " + recovered, fleet.live(), end, SETTLE);
    }

    @FunctionalInterface
    private interface Fault {
        long apply(Instance faulted) throws Exception;
    }

    /** Checks of a scenario's own over the fault's window, from {@code fault} to {@code end}. */
    @FunctionalInterface
    private interface FaultChecks {

        FaultChecks NONE = (faulted, others, fault, end) -> {
        };

        void check(Instance faulted, List<Instance> others, long fault, long end);
    }

    /**
     * Fails the scenario where, from the stop of {@code stopped} (SIGSTOP) to just before it was let go again, the
     * server listed more member sessions than the budget: the stopped member's sessions count until the server has
     * ended them, and no other member may grow into its share before then. No floor is allowed for here: nobody
     * starts or rejoins while it is stopped.
     */
    private static void checkWithinBudgetWhileStopped(Scenario scenario, Instance stopped, long from, long to) {
        List<Sample> window = scenario.samples(from, to);
        scenario.check("Σ member connections ≤ budget " + Fleet.BUDGET + " while " + stopped.name() + " was stopped",
                window, sample -> sample.memberConnections() > Fleet.BUDGET);
        if (window.stream().noneMatch(sample -> sample.memberConnections(stopped.name()) == 0)) {
            scenario.violation(stopped.name() + " was not fenced while it was stopped: the check of the budget saw"
                    + " no fence");
        }
    }

    /** Fails the scenario unless {@code member}'s lease was renewed during {@code window}. */
    private static void checkLeaseRenewed(Scenario scenario, Instance member, List<Sample> window) {
        List<Sample.Lease> leases = window.stream().flatMap(sample -> sample.leases().stream())
                .filter(lease -> lease.instance().equals(member.name())).toList();
        if (leases.isEmpty() || !leases.getLast().expiresAt().isAfter(leases.getFirst().expiresAt())) {
            scenario.violation(member.name() + "'s lease was not renewed while the renewal was frozen: "
                    + (leases.isEmpty() ? "no row" : "expires at " + leases.getFirst().expiresAt() + " then "
                    + leases.getLast().expiresAt()));
        }
    }

    /**
     * Notes the most member sessions each of {@code instances} showed from {@code from} until it was first granted a
     * connection: what it opened on its own while starting, outside the budget.
     */
    private void noteMostSessionsBeforeFirstGrant(Scenario scenario, List<Instance> instances, long from) {
        List<Sample> samples = scenario.samples(from, System.nanoTime());
        scenario.note("most sessions before the first grant " + byName(instances, instance -> samples.stream()
                .takeWhile(sample -> sample.unexpiredLease(instance.name()).map(Sample.Lease::granted).orElse(0) == 0)
                .mapToInt(sample -> sample.memberConnections(instance.name())).max().orElse(0)));
    }

    /** A figure per instance, in the order of their names. */
    private static Map<String, Integer> byName(List<Instance> instances, ToIntFunction<Instance> figure) {
        return instances.stream().collect(Collectors.toMap(Instance::name, figure::applyAsInt, (a, b) -> a,
                TreeMap::new));
    }

    /** Lets a fault or an observation last {@code duration} from {@code since}: the first sample taken after it. */
    private void lastFor(Duration duration, long since) {
        fleet.sampler().await("a sample " + duration + " on", since + duration.toNanos(), duration.plus(SETTLE),
                sample -> true);
    }

    /** Runs one scenario: figures recorded whatever happens, then its checks asserted. */
    private void run(String name, int allowance, String allowanceReason, boolean fromBaseline, Body body) {
        if (fromBaseline) {
            try {
                fleet.restoreBaseline();
            } catch (RuntimeException | AssertionError notRestored) {
                figures.add(new Figures.Row(name, -1, Fleet.BUDGET + Fleet.FLOOR * allowance, "—", "—",
                        "NOT RUN: the fleet did not return to 6/6/6 first: " + notRestored.getMessage()));
                throw notRestored;
            }
        }
        Scenario scenario = new Scenario(name, allowance, allowanceReason, fleet);
        Throwable failure = null;
        try {
            body.run(scenario);
            // The scenario's last samples show the fleet settled: the next scenario starts from full pools.
            List<Instance> live = fleet.live();
            fleet.awaitPoolsFilled(live, fleet.awaitFairSplit(live, System.nanoTime(), SETTLE).at(), SETTLE);
        } catch (Exception | AssertionError e) {
            failure = e;
        }
        figures.add(scenario.finish(failure));
        scenario.assertPassed(failure);
    }

    @FunctionalInterface
    private interface Body {
        void run(Scenario scenario) throws Exception;
    }
}
