package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The order of waiting work as a policy alone: no gate, no threads. */
class WaitingWorkTests {

    private final WaitingWork<String> order = new WaitingWork<>(AdmissionRules.DEFAULT_KEY_SLOTS, AdmissionRules.NO_RUNNING_CAP);

    @Test
    void aWaiterThatLeavesUnservedCostsItsFlowNothing() {
        WaitingWork.Waiter<String> timedOut = order.add(ticket("acme"), "acme-1");
        order.remove(timedOut);

        order.add(ticket("acme"), "acme-2");
        order.add(ticket("globex"), "globex-1");

        assertThat(order.peekNext().owner).as("acme used nothing: it comes first, by arrival").isEqualTo("acme-2");
    }

    @Test
    void aPushedOutWaiterDoesNotPushItsFlowFurtherBehindEachTime() {
        order.add(ticket("acme"), "acme-1");
        for (int i = 0; i < 5; i++) {
            WaitingWork.Waiter<String> last = order.add(ticket("acme"), "acme-pushed-" + i);
            assertThat(order.displacedBy(ticket("globex"))).isSameAs(last);
            order.remove(last);
        }

        order.add(ticket("acme"), "acme-2");
        order.add(ticket("initech"), "initech-1");
        order.add(ticket("initech"), "initech-2");
        WaitingWork.Waiter<String> first = order.peekNext();
        order.granted(first);
        WaitingWork.Waiter<String> second = order.peekNext();
        order.granted(second);
        WaitingWork.Waiter<String> third = order.peekNext();

        assertThat(first.owner).isEqualTo("acme-1");
        assertThat(second.owner).isEqualTo("initech-1");
        assertThat(third.owner).as("one place each, whatever was pushed out before").isEqualTo("acme-2");
    }

    @Test
    void aWaiterThatTimesOutAheadOfItsFlowsOthersCostsItsFlowNothing() {
        WaitingWork.Waiter<String> oldest = order.add(ticket("acme"), "acme-1");
        order.add(ticket("acme"), "acme-2");
        order.remove(oldest);
        order.add(ticket("globex"), "globex-1");

        assertThat(order.peekNext().owner)
                .as("acme had no place yet: its next waiter starts where the one that left did, and came first")
                .isEqualTo("acme-2");
    }

    @Test
    void aFlowServedAheadByPriorityDoesNotPushNewcomersBehindTheOthersBacklog() {
        order.add(ticket("acme"), "acme-new-1");
        order.add(ticket("acme"), "acme-new-2");
        order.add(inProgress("acme"), "acme-in-progress-1");
        order.add(inProgress("acme"), "acme-in-progress-2");
        order.granted(order.peekNext());
        order.granted(order.peekNext());

        WaitingWork.Waiter<String> displaced = order.displacedBy(ticket("globex"));

        assertThat(displaced).as("globex used nothing: it takes the place of acme's last new request")
                .isNotNull().extracting(waiter -> waiter.owner).isEqualTo("acme-new-2");
    }

    @Test
    void atEqualTagsTheNewcomerOfAFlowThatUsedLessOfLateTakesTheBusyFlowsPlace() {
        order.add(ticket("acme"), "acme-1");
        order.granted(order.peekNext());
        order.add(ticket("initech"), "initech-1");
        order.add(ticket("initech"), "initech-2");
        order.granted(order.peekNext());
        order.granted(order.peekNext());
        WaitingWork.Waiter<String> waiting = order.add(ticket("acme"), "acme-2");

        assertThat(order.displacedBy(ticket("globex")))
                .as("acme starts at the virtual time as globex would, but was served of late and globex was not")
                .isSameAs(waiting);
        assertThat(order.displacedBy(ticket("initech"))).as("initech used more of late than acme").isNull();
    }

    @Test
    void aNewcomerOfTheSameFlowOrOfAnEquallyServedFlowDisplacesNobody() {
        order.add(ticket("acme"), "acme-1");

        assertThat(order.displacedBy(ticket("acme"))).isNull();
        assertThat(order.displacedBy(ticket("globex"))).as("equal use: arrival decides").isNull();
    }

    @Test
    void aQuietFlowsNewcomerTakesThePlaceOfAFlowThatAskedClearlyMoreThoughItsBurstTaggedItLast() {
        WaitingWork.Waiter<String> busyNewest = busyFlowWaitingBesideAQuietFlowsBurst();

        assertThat(order.displacedBy(ticket("globex")))
                .as("globex's burst is tagged past acme's waiters, but acme asked far more than globex")
                .isSameAs(busyNewest);
    }

    @Test
    void aNewcomerOfAFlowThatAskedClearlyMoreNeverPushesOutAQuietFlowsWaiterThoughItsTagIsSmaller() {
        busyFlowWaitingBesideAQuietFlowsBurst();

        assertThat(order.displacedBy(ticket("acme")))
                .as("acme's own waiters come last among its own; globex's burst is no use over its share")
                .isNull();
    }

    @Test
    void aFlowsNewcomersRefusedAtTheEdgeCountAmongItsAsks() {
        order.add(ticket("acme"), "acme-1");
        WaitingWork.Waiter<String> acmeNewest = order.add(ticket("acme"), "acme-2");
        for (int i = 1; i <= 3; i++) {
            order.add(ticket("initech"), "initech-" + i);
        }
        assertThat(order.displacedBy(ticket("initech"))).as("initech asked more than acme so far").isNull();

        for (int i = 0; i < 30; i++) {
            assertThat(order.displacedBy(ticket("acme"))).as("acme's newcomers come after every waiter").isNull();
        }

        assertThat(order.displacedBy(ticket("initech")))
                .as("acme's thirty refused newcomers count among its asks: it asked clearly more than initech")
                .isSameAs(acmeNewest);
    }

    @Test
    void aFlowForgottenBetweenItsWaitsComesBackWithWhatItAsked() {
        WaitingWork<String> small = new WaitingWork<>(4, AdmissionRules.NO_RUNNING_CAP);
        askAndBeServed(small, "acme", 50);
        forgetAcmeBehind(small, 4);
        WaitingWork.Waiter<String> acmeBack = small.add(ticket("acme"), "acme-back");

        assertThat(small.displacedBy(ticket("globex")))
                .as("acme was forgotten behind four other flows, but not what it asked: far more than globex")
                .isSameAs(acmeBack);
    }

    @Test
    void onlyTheLastFlowsForgottenAreRememberedForWhatTheyAsked() {
        WaitingWork<String> small = new WaitingWork<>(4, AdmissionRules.NO_RUNNING_CAP);
        askAndBeServed(small, "acme", 50);
        forgetAcmeBehind(small, 8);
        small.add(ticket("acme"), "acme-back");

        assertThat(small.displacedBy(ticket("globex")))
                .as("four flows forgotten after acme: its asks are gone too, and it starts as globex does")
                .isNull();
    }

    private static void askAndBeServed(WaitingWork<String> order, String key, int times) {
        for (int i = 0; i < times; i++) {
            order.add(ticket(key), key + "-" + i);
            order.granted(order.peekNext());
        }
    }

    /** Serves {@code others} other flows once each after acme, so that acme is forgotten at the fourth. */
    private static void forgetAcmeBehind(WaitingWork<String> order, int others) {
        for (int i = 0; i < others; i++) {
            askAndBeServed(order, "other-" + i, 1);
        }
        assertThat(order.flowsKnown()).as("the last four served, acme not among them").isEqualTo(4);
    }

    /**
     * acme asked for 100 places and got them, and has two waiters; then globex, never seen before, sends nine
     * operations together: its first four start behind the virtual time on what it saved up, the rest past acme's
     * waiters. Returns acme's newest waiter.
     */
    private WaitingWork.Waiter<String> busyFlowWaitingBesideAQuietFlowsBurst() {
        for (int i = 0; i < 100; i++) {
            order.add(ticket("acme"), "acme-served-" + i);
            order.granted(order.peekNext());
        }
        order.add(ticket("acme"), "acme-1");
        WaitingWork.Waiter<String> busyNewest = order.add(ticket("acme"), "acme-2");
        WaitingWork.Waiter<String> burstLast = null;
        for (int i = 1; i <= 9; i++) {
            burstLast = order.add(ticket("globex"), "globex-" + i);
        }
        assertThat(burstLast.compareTo(busyNewest)).as("the burst's last waiter is tagged after acme's").isPositive();
        return busyNewest;
    }

    @Test
    void flowsWithoutWaitersAreRememberedWithinTheBound() {
        WaitingWork<String> small = new WaitingWork<>(4, AdmissionRules.NO_RUNNING_CAP);
        for (int i = 0; i < 1_000; i++) {
            WaitingWork.Waiter<String> waiter = small.add(ticket("key-" + i), "w");
            small.add(ticket("key-" + i), "w");
            small.granted(small.peekNext());
            small.remove(waiter);
            small.granted(small.peekNext());
        }

        assertThat(small.isEmpty()).isTrue();
        assertThat(small.flowsKnown()).as("the last four served, still ahead of the virtual time").isEqualTo(4);
    }

    @Test
    void underACapPerKeyTheFirstWaiterOfAFlowRunningItsCapIsPassedOverUntilOneOfItsOperationsEnds() {
        WaitingWork<String> capped = new WaitingWork<>(AdmissionRules.DEFAULT_KEY_SLOTS, 1);
        assertThat(capped.tryStart(ticket("acme"))).as("acme runs nothing yet").isTrue();
        assertThat(capped.tryStart(ticket("acme"))).as("acme runs its cap").isFalse();
        capped.add(ticket("acme"), "acme-2");
        capped.add(ticket("globex"), "globex-1");

        assertThat(capped.peekNext().owner).as("acme's waiter came first, but acme runs its cap").isEqualTo("globex-1");
        capped.granted(capped.peekNext());
        assertThat(capped.peekNext()).as("nobody else may run: acme at its cap").isNull();
        assertThat(capped.tryStart(ticket("globex"))).as("globex's granted waiter counts as running").isFalse();

        capped.finished("acme");
        assertThat(capped.peekNext().owner).isEqualTo("acme-2");
    }

    @Test
    void aNewcomerOfAFlowRunningItsCapPushesOutNobody() {
        WaitingWork<String> capped = new WaitingWork<>(AdmissionRules.DEFAULT_KEY_SLOTS, 1);
        capped.add(ticket("globex"), "globex-1");
        capped.add(ticket("globex"), "globex-2");
        capped.add(ticket("acme"), "acme-1");
        capped.granted(capped.peekNext());
        capped.granted(capped.peekNext());
        assertThat(capped.displacedBy(ticket("initech"))).as("initech used nothing: globex-2 gives way")
                .extracting(waiter -> waiter.owner).isEqualTo("globex-2");

        assertThat(capped.tryStart(ticket("initech"))).isTrue();
        assertThat(capped.displacedBy(ticket("initech"))).as("initech runs its cap: it could not run anyway")
                .isNull();
    }

    @Test
    void aFlowIsRememberedWhileItRunsAndForgottenOnceItsLastOperationEnds() {
        WaitingWork<String> capped = new WaitingWork<>(4, 2);
        capped.tryStart(ticket("acme"));
        capped.tryStart(ticket("acme"));
        assertThat(capped.flowsKnown()).isEqualTo(1);

        capped.finished("acme");
        assertThat(capped.flowsKnown()).as("one acme operation still runs").isEqualTo(1);
        capped.finished("acme");
        assertThat(capped.flowsKnown()).as("it never waited, so it used nothing the order charged").isZero();
    }

    @Test
    void aReleaseNamingAFlowThatRunsNothingIsRefusedAsTheBugItIs() {
        WaitingWork<String> capped = new WaitingWork<>(4, 1);

        org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(() -> capped.finished("acme"))
                .withMessage("no operation of flow 'acme' is counted as running");
    }

    @Test
    void withoutACapFlowsCountNothingRunningAndEveryWaiterMayBeServed() {
        assertThat(order.countsRunning()).isFalse();
        assertThat(order.tryStart(ticket("acme"))).isTrue();
        assertThat(order.tryStart(ticket("acme"))).isTrue();
        order.add(ticket("acme"), "acme-1");

        assertThat(order.peekNext().owner).isEqualTo("acme-1");
        assertThat(order.flowsKnown()).as("only the waiter's flow").isEqualTo(1);
    }

    private static WaitingWork.Ticket ticket(String key) {
        return new WaitingWork.Ticket(Criticality.DEFAULT, false, key, 1);
    }

    private static WaitingWork.Ticket inProgress(String key) {
        return new WaitingWork.Ticket(Criticality.DEFAULT, true, key, 1);
    }
}
