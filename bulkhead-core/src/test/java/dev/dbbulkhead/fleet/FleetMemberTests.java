package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The member's own rules, on a clock the test moves: it beats and checks its lease only when told to. */
class FleetMemberTests {

    private static final Duration HEARTBEAT = Duration.ofSeconds(1);
    private static final Duration LEASE_TTL = Duration.ofSeconds(10);
    private static final int FLOOR = 2;
    private static final Duration JOINER_HEARTBEAT = Duration.ofMillis(10);

    private final AtomicLong clock = new AtomicLong(1_000);
    private final List<String> events = new ArrayList<>();
    private final ManualScheduler scheduler = new ManualScheduler();
    private Function<LeaseRequest, Lease> answer;

    private final FleetCoordinator coordinator = new FleetCoordinator() {
        @Override
        public Lease renew(LeaseRequest request) {
            events.add("renew in use " + request.connectionsInUse());
            return answer.apply(request);
        }

        @Override
        public void leave(String memberId) {
            events.add("leave");
        }
    };

    private final ShareTarget target = connections -> {
        events.add("apply " + connections);
        return true;
    };

    private final RecordingFleetLog log = new RecordingFleetLog();
    private final List<String> logLines = log.lines;

    private final FleetMember member = new FleetMember(coordinator,
            new FleetSettings("m", 1, 10, FLOOR, HEARTBEAT, LEASE_TTL, null), List.of(target), scheduler, log,
            clock::get);

    @AfterEach
    void shutDown() {
        scheduler.shutdownNow();
    }

    @Test
    void aMemberResumedPastItsLeaseFallsToItsFloorWhenAskedWhatItMayHoldBeforeItsLeaseCheckRuns() {
        member.start();
        answer = request -> lease(8, 8);
        member.heartbeat();
        assertThat(member.connectionsAllowed()).isEqualTo(8);

        // Paused (SIGSTOP, a long GC pause) past its lease: on resuming, a connection is about to be opened before the
        // scheduler has run the lease check.
        clock.addAndGet(LEASE_TTL.toNanos());

        assertThat(member.connectionsAllowed()).isEqualTo(FLOOR);
        assertThat(member.snapshot().status()).isEqualTo(FleetMember.Status.LAPSED);
        assertThat(events).endsWith("apply " + FLOOR);
        assertThat(logLines).anyMatch(line -> line.startsWith("WARN Fleet member m: its lease expired unrenewed"));
    }

    @Test
    void itsJoinItsFencingOfAnotherMemberItsLapseAndItsLeaveGoToTheLogItWasGiven() {
        member.start();
        answer = request -> new Lease(8, 8, 12, 12, List.of(), List.of(new Lease.Fenced("gone", 6, 0, 0),
                new Lease.Fenced("unsignalled", 0, 2, 0)), List.of());
        member.heartbeat();
        clock.addAndGet(LEASE_TTL.toNanos());
        member.checkLease();
        member.stop();

        assertThat(logLines).anyMatch(line -> line.startsWith("INFO Fleet member m joined the fleet: granted 8"))
                .anyMatch(line -> line.startsWith("INFO Fleet member m fenced member gone")
                        && line.contains("ended its 6 sessions"))
                .anyMatch(line -> line.startsWith("WARN Fleet member m could not end 2 sessions of member unsignalled"))
                .anyMatch(line -> line.startsWith("WARN Fleet member m: its lease expired unrenewed"))
                .anyMatch(line -> line.startsWith("INFO Fleet member m left the fleet"));
    }

    @Test
    void aFencedMemberWhoseSessionsAreNotYetGoneAndEachIgnoredRowAreReportedAtWarnOnce() {
        member.start();
        answer = request -> new Lease(4, 6, 12, 12, List.of(), List.of(new Lease.Fenced("paused", 6, 0, 2)),
                List.of(new Lease.Ignored("forged\nline", "its budget 1 differs from this member's 12")));
        member.heartbeat();
        member.heartbeat();

        assertThat(logLines).filteredOn(line -> line.startsWith("WARN Fleet member m ended the sessions of member"
                + " paused")).hasSize(2).allMatch(line -> line.contains("2 of its 6 sessions were still open")
                && line.contains("share stays withheld"));
        assertThat(logLines).noneMatch(line -> line.startsWith("INFO Fleet member m fenced member paused"));
        assertThat(logLines).filteredOn(line -> line.startsWith("WARN Fleet member m ignores the row of member"))
                .containsExactly("WARN Fleet member m ignores the row of member 'forged?line' in the fleet's table:"
                        + " its budget 1 differs from this member's 12; it neither counts, nor is fenced, nor"
                        + " removed: only the fleet's members should write the table");
    }

    @Test
    void settingsRefuseASessionNameThatIsNotOfTheMemberForm() {
        assertThatIllegalArgumentException().isThrownBy(() -> new FleetSettings("n", 1, 10, FLOOR, HEARTBEAT,
                LEASE_TTL, "billing-service")).withMessageContaining("member form")
                .withMessageContaining("'billing-service'");
        assertThatIllegalArgumentException().isThrownBy(() -> new LeaseRequest("n", 1, 10, 0, LEASE_TTL, ""))
                .withMessageContaining("member form");
        assertThat(FleetSettings.memberSessionName("app", "1a2b3c4d")).isEqualTo("app (db-bulkhead member 1a2b3c4d)");
        assertThat(FleetSettings.isMemberSessionName("(db-bulkhead member 1a2b3c4d)")).isTrue();
        assertThat(FleetSettings.isMemberSessionName("app (db-bulkhead coordinator 1a2b3c4d)")).isFalse();
        assertThat(FleetSettings.isMemberSessionName("app(db-bulkhead member 1a2b3c4d)")).isFalse();
    }

    @Test
    void aRenewalCarriesTheNameOfTheMembersSessions() {
        FleetMember named = new FleetMember(coordinator, new FleetSettings("n", 1, 10, FLOOR, HEARTBEAT, LEASE_TTL,
                "app (db-bulkhead member 1a2b3c4d)"), List.of(target), scheduler, log, clock::get);
        List<LeaseRequest> requests = new ArrayList<>();
        answer = request -> {
            requests.add(request);
            return lease(8, 8);
        };
        named.start();
        named.heartbeat();

        assertThat(requests).extracting(LeaseRequest::sessionName).containsExactly("app (db-bulkhead member 1a2b3c4d)");
    }

    @Test
    void anUnreachableCoordinatorLeavesTheShareInUseUntilTheLeaseWouldHaveExpiredThenTheFloor() {
        member.start();
        answer = request -> lease(8, 8);
        member.heartbeat();
        assertThat(member.snapshot().applied()).isEqualTo(8);

        answer = request -> {
            throw new FleetUnavailableException("down", new SQLException("connection refused"));
        };
        long validUntil = 1_000 + LEASE_TTL.toNanos() - 2 * member.settings().leaseCheck().toNanos();
        clock.set(validUntil - 1);
        member.heartbeat();
        member.checkLease();
        assertThat(member.snapshot().applied()).as("share kept while the lease lasts").isEqualTo(8);
        assertThat(member.snapshot().lastFailure()).contains("down");

        clock.set(validUntil);
        member.checkLease();
        assertThat(member.snapshot().status()).isEqualTo(FleetMember.Status.LAPSED);
        assertThat(member.snapshot().applied()).as("fallen to the floor").isEqualTo(FLOOR);

        answer = request -> lease(8, 8);
        member.heartbeat();
        assertThat(member.snapshot().applied()).as("grows again with a new grant").isEqualTo(8);
    }

    @Test
    void aLoweredTargetIsAppliedBeforeTheShareIsGivenBack() {
        member.start();
        answer = request -> lease(8, 8);
        member.heartbeat();
        events.clear();

        answer = request -> request.connectionsInUse() >= 8 ? lease(8, 3) : lease(request.connectionsInUse(), 3);
        member.heartbeat();

        assertThat(events).containsExactly("renew in use 8", "apply 3", "renew in use 3");
        assertThat(member.snapshot().granted()).isEqualTo(3);
    }

    @Test
    void aMemberWhoseTransactionsOutlastTheHeartbeatGivesBackWhatItHoldsAndTheRestAtTheNextHeartbeat() {
        AtomicInteger inUse = new AtomicInteger(8);
        ShareTarget busyPool = new ShareTarget() {
            @Override
            public boolean apply(int connections) {
                events.add("apply " + connections);
                return true;
            }

            @Override
            public int connectionsInUse() {
                // Every look at the pool takes a quarter of a heartbeat: the wait for it to drain must end.
                clock.addAndGet(HEARTBEAT.toNanos() / 4);
                return inUse.get();
            }
        };
        FleetMember busy = new FleetMember(coordinator,
                new FleetSettings("busy", 1, 10, FLOOR, HEARTBEAT, LEASE_TTL, null), List.of(busyPool), scheduler, log,
                clock::get);
        busy.start();
        answer = request -> lease(8, 8);
        busy.heartbeat();
        events.clear();
        answer = request -> lease(Math.max(3, Math.min(8, request.connectionsInUse())), 3);

        long before = clock.get();
        busy.heartbeat();
        assertThat(events).containsExactly("renew in use 8", "apply 3", "renew in use 8");
        assertThat(busy.snapshot().granted()).as("never below what the pool still holds").isEqualTo(8);
        assertThat(clock.get() - before).as("waited at least a heartbeat for the pool to drain")
                .isGreaterThanOrEqualTo(HEARTBEAT.toNanos());

        inUse.set(3);
        busy.heartbeat();
        assertThat(busy.snapshot().granted()).as("given back once the transactions let go").isEqualTo(3);
    }

    @Test
    void aGrantAboveTheTargetIsNotUsedAndOneBelowTheFloorLeavesTheFloor() {
        member.start();
        answer = request -> lease(6, 4);
        member.heartbeat();
        assertThat(member.snapshot().applied()).as("never above the target").isEqualTo(4);

        answer = request -> lease(0, 4);
        member.heartbeat();
        assertThat(member.snapshot().applied()).as("a newcomer granted nothing yet stays on its floor")
                .isEqualTo(FLOOR);
    }

    @Test
    void aGrantThatArrivesAfterItsLeaseWouldHaveLapsedIsNotUsed() {
        member.start();
        answer = request -> {
            clock.addAndGet(LEASE_TTL.toNanos());
            return lease(8, 8);
        };
        member.heartbeat();

        assertThat(member.snapshot().applied()).isEqualTo(FLOOR);
        assertThat(member.snapshot().status()).isEqualTo(FleetMember.Status.JOINING);
    }

    @Test
    void leavingFallsToTheFloorBeforeItGivesTheShareBack() {
        member.start();
        answer = request -> lease(8, 8);
        member.heartbeat();
        events.clear();

        member.stop();

        assertThat(events).containsExactly("apply " + FLOOR, "leave");
        assertThat(member.snapshot().status()).isEqualTo(FleetMember.Status.LEFT);
        assertThat(scheduler.cancelled).as("heartbeat and lease check stopped").isEqualTo(2);
    }

    @Test
    void aHeartbeatThatRunsAfterTheMemberLeftRenewsNothing() {
        member.start();
        answer = request -> lease(8, 8);
        member.heartbeat();
        member.stop();
        events.clear();

        // A heartbeat already under way when stop() cancelled its task gets the renewal lock after the goodbye.
        member.heartbeat();

        assertThat(events).as("nothing renewed after the share was given back").isEmpty();
        assertThat(member.snapshot().status()).isEqualTo(FleetMember.Status.LEFT);
    }

    @Test
    void joiningWithinTheBudgetRenewsEveryHeartbeatUntilGrantedItsFloorAndOnlyThenReturnsAndBeats() {
        FleetMember joiner = joiner();
        List<Lease> answers = new ArrayList<>(List.of(lease(0, 4), lease(FLOOR - 1, 4), lease(3, 4)));
        answer = request -> answers.remove(0);

        assertThat(joiner.startWithinBudget(Duration.ofSeconds(30))).isTrue();

        assertThat(events).containsExactly("apply " + FLOOR, "renew in use " + FLOOR, "renew in use " + FLOOR,
                "renew in use " + FLOOR, "apply 3");
        assertThat(logLines).filteredOn(line -> line.contains("waits for room")).containsExactly(
                "INFO Fleet member j waits for room for its floor of 2 (granted 0 of budget 12 among 0 members):"
                        + " the others give back at their next heartbeat");
        assertThat(scheduler.initialDelaysNanos).as("the next renewal a heartbeat on, the lease check")
                .containsExactly(JOINER_HEARTBEAT.toNanos(), Duration.ofMillis(100).toNanos());
    }

    @Test
    void joiningGivesUpWaitingForRoomOnceItsWaitPassedAndRunsOnItsFloorRenewingFromTheNextHeartbeat() {
        FleetMember joiner = joiner();
        answer = request -> {
            clock.addAndGet(JOINER_HEARTBEAT.toNanos());
            return lease(0, 4);
        };

        assertThat(joiner.startWithinBudget(JOINER_HEARTBEAT.multipliedBy(3))).isFalse();

        assertThat(events).containsExactly("apply " + FLOOR, "renew in use " + FLOOR, "renew in use " + FLOOR,
                "renew in use " + FLOOR);
        assertThat(joiner.snapshot().applied()).isEqualTo(FLOOR);
        assertThat(logLines).contains("WARN Fleet member j: no room for its floor of 2 within PT0.03S (granted 0 of"
                + " budget 12 among 0 members); it runs on its floor outside the budget until a renewal grants it");
        assertThat(scheduler.initialDelaysNanos).first().isEqualTo(0L);
    }

    @Test
    void joiningWithAnUnreachableCoordinatorStartsOnItsFloorAtOnce() {
        FleetMember joiner = joiner();
        answer = request -> {
            throw new FleetUnavailableException("down", new SQLException("connection refused"));
        };

        assertThat(joiner.startWithinBudget(Duration.ofSeconds(30))).isFalse();

        assertThat(events).containsExactly("apply " + FLOOR, "renew in use " + FLOOR);
        assertThat(joiner.snapshot().status()).isEqualTo(FleetMember.Status.JOINING);
        assertThat(scheduler.initialDelaysNanos).first().isEqualTo(0L);
    }

    @Test
    void aMemberStoppedWhileItWaitsForRoomNeverStartsRenewing() throws InterruptedException {
        FleetMember joiner = joiner();
        AtomicReference<Thread> stopper = new AtomicReference<>();
        answer = request -> {
            if (stopper.get() == null) {
                Thread stopping = new Thread(joiner::stop);
                stopper.set(stopping);
                stopping.start();
                // Stopping waits for the join to let go of the renewal, once it has said it stops.
                while (stopping.getState() != Thread.State.WAITING) {
                    Thread.onSpinWait();
                }
            }
            return lease(0, 4);
        };

        assertThat(joiner.startWithinBudget(Duration.ofSeconds(30))).isFalse();
        stopper.get().join();

        assertThat(scheduler.initialDelaysNanos).isEmpty();
        assertThat(joiner.snapshot().status()).isEqualTo(FleetMember.Status.LEFT);
        assertThat(events).endsWith("leave");
    }

    /** A member whose heartbeat is short: it waits for room in real time, a heartbeat at a time. */
    private FleetMember joiner() {
        return new FleetMember(coordinator, new FleetSettings("j", 1, 10, FLOOR, JOINER_HEARTBEAT,
                Duration.ofSeconds(1), null), List.of(target), scheduler, log, clock::get);
    }

    private static Lease lease(int granted, int target) {
        return new Lease(granted, target, 12, 12, List.of(), List.of(), List.of());
    }
}
