package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How often a member renews, on a clock the test moves one heartbeat at a time: every heartbeat in a small fleet or
 * with a coordinator that does not announce changes; every few in a large fleet while its share is settled and
 * nothing changed.
 */
class FleetMemberCadenceTests {

    private static final Duration HEARTBEAT = Duration.ofSeconds(1);
    private static final Duration LEASE_TTL = Duration.ofSeconds(5);

    private final AtomicLong clock = new AtomicLong(1_000);
    private final List<Duration> renewals = new ArrayList<>();
    private final ManualScheduler scheduler = new ManualScheduler();
    private boolean announces = true;
    private boolean changed;
    private OptionalInt announced = OptionalInt.empty();
    private Function<LeaseRequest, Lease> answer = request -> leaseAmong(12, 4, 4);

    private final FleetCoordinator coordinator = new FleetCoordinator() {
        @Override
        public Lease renew(LeaseRequest request) {
            renewals.add(request.leaseTtl());
            changed = false;
            announced = OptionalInt.empty();
            return answer.apply(request);
        }

        @Override
        public void leave(String memberId) {
        }

        @Override
        public FleetNews newsFor(String memberId) {
            if (!announces || changed) {
                return FleetNews.MAY_HAVE_CHANGED;
            }
            return announced.isPresent() ? new FleetNews.TotalMoved(announced.getAsInt()) : FleetNews.UNCHANGED;
        }

        @Override
        public boolean announcesChanges() {
            return announces;
        }
    };

    private final RecordingFleetLog log = new RecordingFleetLog();
    private final List<String> logLines = log.lines;

    private final FleetMember member = new FleetMember(coordinator,
            new FleetSettings("m", 1, 10, 1, HEARTBEAT, LEASE_TTL, null), List.of(connections -> true), scheduler, log,
            clock::get);

    @AfterEach
    void shutDown() {
        scheduler.shutdownNow();
    }

    @Test
    void aSettledMemberOfTwelveRenewsEveryTwelveHeartbeatsOnALeaseTwelveTimesAsLong() {
        member.start();
        beat(2);
        assertThat(renewals).as("joining on the short lease, then the first renewal that knows the fleet's size")
                .containsExactly(LEASE_TTL, LEASE_TTL.multipliedBy(12));
        renewals.clear();

        beat(36);

        assertThat(renewals).as("every twelfth heartbeat").hasSize(3).allMatch(LEASE_TTL.multipliedBy(12)::equals);
        assertThat(member.snapshot()).extracting(FleetMember.Snapshot::status,
                        FleetMember.Snapshot::heartbeatsPerRenewal, FleetMember.Snapshot::leaseTtl)
                .containsExactly(FleetMember.Status.LEASED, 12, LEASE_TTL.multipliedBy(12));
        assertThat(member.connectionsAllowed()).isEqualTo(4);
        assertThat(logLines).contains("INFO Fleet member m: renews every 12 heartbeats while its share is settled,"
                + " its lease lasting PT1M, among 12 members");
    }

    @Test
    void anAnnouncedChangeIsRenewedAtTheNextHeartbeatAndTheMemberThenKeepsItsOwnPlaceInTheCycle() {
        member.start();
        beat(2);
        renewals.clear();

        changed = true;
        beat(1);
        assertThat(renewals).as("at once").hasSize(1);

        int place = RenewalCadence.heartbeatsAfterChange("m", 12);
        beat(place - 1);
        assertThat(renewals).as("not before its place").hasSize(1);
        beat(1);
        assertThat(renewals).as("at its place").hasSize(2);
        beat(12);
        assertThat(renewals).as("then every twelfth heartbeat").hasSize(3);
    }

    @Test
    void aMemberBelowItsTargetRenewsEveryHeartbeatUntilItHoldsIt() {
        answer = request -> leaseAmong(12, 2, 4);
        member.start();

        beat(3);

        assertThat(renewals).hasSize(3);
        answer = request -> leaseAmong(12, 4, 4);
        beat(2);
        assertThat(renewals).as("settled at the fourth renewal, then resting").hasSize(4);
    }

    @Test
    void aSmallFleetOrACoordinatorThatAnnouncesNothingRenewsEveryHeartbeatOnTheConfiguredLease() {
        answer = request -> leaseAmong(5, 4, 4);
        member.start();
        beat(4);
        assertThat(renewals).containsExactly(LEASE_TTL, LEASE_TTL, LEASE_TTL, LEASE_TTL);
        assertThat(member.snapshot()).extracting(FleetMember.Snapshot::heartbeatsPerRenewal,
                FleetMember.Snapshot::leaseTtl).containsExactly(1, LEASE_TTL);

        renewals.clear();
        answer = request -> leaseAmong(12, 4, 4);
        announces = false;
        beat(4);
        assertThat(renewals).containsExactly(LEASE_TTL, LEASE_TTL, LEASE_TTL, LEASE_TTL);
    }

    @Test
    void aFailedRenewalIsRetriedAtTheNextHeartbeatWhileTheLongLeaseLasts() {
        member.start();
        beat(2);
        renewals.clear();
        answer = request -> {
            throw new FleetUnavailableException("down", new IllegalStateException("down"));
        };
        beat(12);
        assertThat(renewals).as("the due renewal failed").hasSize(1);

        beat(3);

        assertThat(renewals).as("retried every heartbeat").hasSize(4);
        assertThat(member.connectionsAllowed()).as("its lease of a minute still holds").isEqualTo(4);
    }

    @Test
    void aRestingMemberFollowsALoweredTotalAtOnceAndBackUpWithinItsGrantWithoutRenewing() {
        member.start();
        beat(2);
        renewals.clear();

        announced = OptionalInt.of(36);
        beat(1);

        assertThat(renewals).isEmpty();
        assertThat(member.connectionsAllowed()).isEqualTo(3);
        assertThat(member.snapshot()).extracting(FleetMember.Snapshot::total, FleetMember.Snapshot::target,
                FleetMember.Snapshot::granted).containsExactly(36, 3, 4);
        assertThat(logLines).contains("INFO Fleet member m: 4 → 3 connections (the fleet's total moved to 36:"
                + " target 3, granted 4 among 12 members)");

        announced = OptionalInt.of(48);
        beat(1);

        assertThat(renewals).isEmpty();
        assertThat(member.connectionsAllowed()).isEqualTo(4);
    }

    @Test
    void aMovedTotalWhoseTargetIsMoreThanTheLeaseGrantsIsRenewedAtTheNextHeartbeat() {
        answer = request -> leaseAmong(12, 3, 3, 36);
        member.start();
        beat(2);
        renewals.clear();

        announced = OptionalInt.of(48);
        beat(1);

        assertThat(renewals).as("only a renewal grants more").hasSize(1);
        assertThat(member.connectionsAllowed()).as("the answer still grants 3").isEqualTo(3);
    }

    @Test
    void aCoordinatorWrappedWithoutItsNewsCostsARenewalEachHeartbeatAndNeverAMissedTotal() {
        // A wrapper, say one that times renewals, that forwards what it was written for and leaves the news out.
        FleetCoordinator wrapper = new FleetCoordinator() {
            @Override
            public Lease renew(LeaseRequest request) {
                return coordinator.renew(request);
            }

            @Override
            public void leave(String memberId) {
                coordinator.leave(memberId);
            }

            @Override
            public boolean announcesChanges() {
                return coordinator.announcesChanges();
            }
        };
        FleetMember wrapped = new FleetMember(wrapper, new FleetSettings("m", 1, 10, 1, HEARTBEAT, LEASE_TTL, null),
                List.of(connections -> true), scheduler, log, clock::get);
        wrapped.start();
        beat(wrapped, 2);
        renewals.clear();

        // The fleet's total falls from 48 to 36, announced with its value: the wrapper does not pass it on.
        announced = OptionalInt.of(36);
        answer = request -> leaseAmong(12, 3, 3, 36);
        beat(wrapped, 1);

        assertThat(renewals).as("renewed at once: it cannot tell").hasSize(1);
        assertThat(wrapped.connectionsAllowed()).as("the lowered total's target").isEqualTo(3);
        beat(wrapped, 3);
        assertThat(renewals).as("then every heartbeat").hasSize(4);
    }

    @Test
    void aRestingMemberAsksItsPoolWhatItHoldsAtEachHeartbeatSoThatThePoolClosesWhatIsAboveItsShare() {
        AtomicInteger held = new AtomicInteger();
        AtomicInteger asked = new AtomicInteger();
        ShareTarget pool = new ShareTarget() {
            @Override
            public boolean apply(int connections) {
                held.set(connections);
                return true;
            }

            @Override
            public int connectionsInUse() {
                asked.incrementAndGet();
                return held.get();
            }
        };
        FleetMember resting = new FleetMember(coordinator, new FleetSettings("m", 1, 10, 1, HEARTBEAT, LEASE_TTL, null),
                List.of(pool), scheduler, log, clock::get);
        resting.start();
        beat(resting, 2);
        renewals.clear();
        asked.set(0);

        beat(resting, 5);
        assertThat(renewals).as("resting on a settled share").isEmpty();
        assertThat(asked).as("the pool asked at each heartbeat, which closes what is above the share").hasValue(5);
    }

    /** Moves the clock a heartbeat and beats, {@code heartbeats} times. */
    private void beat(int heartbeats) {
        beat(member, heartbeats);
    }

    private void beat(FleetMember beating, int heartbeats) {
        for (int i = 0; i < heartbeats; i++) {
            clock.addAndGet(HEARTBEAT.toNanos());
            beating.heartbeat();
        }
    }

    private static Lease leaseAmong(int members, int granted, int target) {
        return leaseAmong(members, granted, target, 48);
    }

    private static Lease leaseAmong(int members, int granted, int target, int total) {
        List<FleetMemberState> states = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            states.add(new FleetMemberState(i == 0 ? "m" : "other-" + i, 1, 10, granted, target, Duration.ZERO,
                    LEASE_TTL));
        }
        return new Lease(granted, target, 48, total, states, List.of(), List.of());
    }
}
