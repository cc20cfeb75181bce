package dev.dbbulkhead.saturation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.saturation.SaturationPolicy.State;
import dev.dbbulkhead.saturation.SaturationPolicy.Workload;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The policy alone: samples and workloads in, caps out. */
class SaturationPolicyTests {

    private static final int CPUS = 4;
    private final SaturationPolicy policy = new SaturationPolicy(CPUS);

    @Test
    void sessionsWaitingForEachOthersLocksAreContentionWhateverTheProcessorsDo() {
        SaturationPolicy.Reading reading = policy.read(signals(Map.of(WaitClass.LOCK, 3, WaitClass.CPU, 1)), 4);

        assertThat(reading.state()).isEqualTo(State.LOCK_CONTENTION);
        assertThat(reading.lockWaiters()).isEqualTo(3);
        assertThat(policy.read(signals(Map.of(WaitClass.LOCK, 1, WaitClass.CPU, 1)), 2).state())
                .as("a lone waiter is a hot row's next holder: hold").isEqualTo(State.BUSY);
        assertThat(policy.read(signals(Map.of(WaitClass.LOCK, 2, WaitClass.CPU, 2, WaitClass.OTHER, 8)), 12).state())
                .as("two waiters among twelve active are not a quarter").isEqualTo(State.BUSY);
        assertThat(policy.read(signals(Map.of(WaitClass.CPU, 1)), 1).state()).isEqualTo(State.HEALTHY);
    }

    @Test
    void moreSessionsOnTheProcessorsAndDisksThanProcessorsIsSaturatedAndFewerThanThreeQuartersHealthy() {
        assertThat(policy.read(signals(Map.of(WaitClass.CPU, 3, WaitClass.IO, 1, WaitClass.LWLOCK, 1)), 5).state())
                .isEqualTo(State.SATURATED);
        assertThat(policy.read(signals(Map.of(WaitClass.CPU, 4)), 4).state()).isEqualTo(State.BUSY);
        assertThat(policy.read(signals(Map.of(WaitClass.CPU, 3)), 3).state()).isEqualTo(State.BUSY);
        assertThat(policy.read(signals(Map.of(WaitClass.CPU, 2, WaitClass.CLIENT, 9)), 11).state())
                .as("sessions waiting for their clients use no processor").isEqualTo(State.HEALTHY);
    }

    @Test
    void withoutTheServersProcessorsOnlyLockContentionIsJudged() {
        SaturationPolicy blind = new SaturationPolicy(SamplerSettings.UNKNOWN_CPUS);

        assertThat(blind.read(signals(Map.of(WaitClass.CPU, 100)), 100).state()).isEqualTo(State.HEALTHY);
        assertThat(blind.read(signals(Map.of(WaitClass.LOCK, 5)), 5).state()).isEqualTo(State.LOCK_CONTENTION);
    }

    @Test
    void saturationLowersTheSheddableWorkloadsFirstAndTheNextClassOnlyOnceTheyAreAtTheirFloor() {
        List<Workload> workloads = List.of(
                new Workload("checkout", Criticality.CRITICAL, 2, 10, 10, 10, true),
                new Workload("orders", Criticality.DEFAULT, 2, 10, 10, 10, true),
                new Workload("reports", Criticality.SHEDDABLE, 2, 8, 8, 8, true));
        DatabaseSignals saturated = signals(Map.of(WaitClass.CPU, 28));

        assertThat(policy.decide(saturated, workloads).caps()).containsExactly(10, 10, 6);

        List<Workload> reportsAtTheFloor = List.of(workloads.get(0), workloads.get(1),
                new Workload("reports", Criticality.SHEDDABLE, 2, 8, 2, 2, true));
        assertThat(policy.decide(saturated, reportsAtTheFloor).caps()).containsExactly(10, 7, 2);
    }

    @Test
    void aWorkloadThatRunsNothingIsNotLoweredForLoweringItRelievesNothing() {
        List<Workload> workloads = List.of(
                new Workload("orders", Criticality.DEFAULT, 1, 10, 10, 6, false),
                new Workload("reports", Criticality.SHEDDABLE, 1, 8, 8, 0, false));

        assertThat(policy.decide(signals(Map.of(WaitClass.CPU, 9)), workloads).caps())
                .as("orders lowered from the 6 it runs").containsExactly(4, 8);
    }

    @Test
    void saturationFromOutsideTheGatesNeverLowersCriticalWorkButOurOwnLockContentionDoes() {
        List<Workload> criticalOnly = List.of(new Workload("checkout", Criticality.CRITICAL, 1, 8, 8, 4, true));

        SaturationPolicy.Decision outside = policy.decide(signals(Map.of(WaitClass.CPU, 20)), criticalOnly);
        assertThat(outside.reading().outside()).isTrue();
        assertThat(outside.caps()).containsExactly(8);

        SaturationPolicy.Decision ours = policy.decide(signals(Map.of(WaitClass.CPU, 6)), criticalOnly);
        assertThat(ours.reading().outside()).isFalse();
        assertThat(ours.caps()).containsExactly(3);

        assertThat(policy.decide(signals(Map.of(WaitClass.LOCK, 4)), criticalOnly).caps())
                .as("four run, four wait: down to the one ready to take the lock").containsExactly(1);
        List<Workload> busy = List.of(new Workload("orders", Criticality.DEFAULT, 1, 20, 20, 20, false));
        assertThat(policy.decide(signals(Map.of(WaitClass.LOCK, 5, WaitClass.CPU, 1, WaitClass.CLIENT, 14)), busy)
                .caps()).as("a quarter cut, when more than that makes progress").containsExactly(15);
    }

    @Test
    void sessionsOfOthersThatAloneWouldKeepTheProcessorsFromHealthAreOutsideThoughThisInstanceRunsMore() {
        List<Workload> criticalAtFive = List.of(new Workload("checkout", Criticality.CRITICAL, 1, 8, 8, 5, true));

        // 8 on 4 processors beside 5 of this instance's operations: at least 3 are another's, three quarters of them.
        SaturationPolicy.Decision surge = policy.decide(signals(Map.of(WaitClass.CPU, 8)), criticalAtFive);
        assertThat(surge.reading().outside()).isTrue();
        assertThat(surge.caps()).as("critical work keeps its places").containsExactly(8);

        assertThat(policy.read(signals(Map.of(WaitClass.CPU, 7)), 5).outside())
                .as("2 of another's would leave the processors healthy").isFalse();
        assertThat(policy.read(signals(Map.of(WaitClass.CPU, 6, WaitClass.CLIENT, 2)), 5).outside())
                .as("another's sessions that wait for their client take no processor").isFalse();
        assertThat(new SaturationPolicy(SamplerSettings.UNKNOWN_CPUS).read(signals(Map.of(WaitClass.CPU, 8)), 5)
                .outside()).as("without the processors' count only a majority tells").isFalse();
    }

    @Test
    void anotherClientsSessionsBetweenTheirStatementsCountTowardsWhoseTheLoadIs() {
        // 5 active on 4 processors beside 3 operations of this instance's; 8 sessions in a transaction in all.
        Map<WaitClass, Integer> active = Map.of(WaitClass.CPU, 5);
        DatabaseSignals withTransactions = new DatabaseSignals(0L, new EnumMap<>(active), null, 0, 0, 0, null,
                Duration.ofMillis(1), DatabaseSignals.NOT_READ, 8);

        SaturationPolicy.Reading reading = policy.read(withTransactions, 3);
        assertThat(reading.inTransaction()).isEqualTo(8);
        assertThat(reading.outside()).as("5 of the 8 in a transaction are another's").isTrue();
        assertThat(policy.read(signals(active), 3).outside())
                .as("counting the active ones alone, another's are 2 of 5").isFalse();
        assertThat(policy.read(withTransactions, 4).outside()).as("4 of 8 are not most").isFalse();
    }

    @Test
    void aHealthyDatabaseRaisesTheWorkloadsThatQueueUpToTheBTheyAskForAndNoOtherWorkload() {
        List<Workload> workloads = List.of(
                new Workload("orders", Criticality.DEFAULT, 1, 10, 4, 4, true),
                new Workload("reports", Criticality.SHEDDABLE, 1, 10, 9, 9, false),
                new Workload("audit", Criticality.DEFAULT, 1, 10, 3, 1, false));

        assertThat(policy.decide(signals(Map.of(WaitClass.CPU, 1)), workloads).caps())
                .as("orders queues, reports runs all its cap allows, audit has room").containsExactly(5, 10, 3);
    }

    @Test
    void onceTheSurgeFromOutsideIsGoneAWorkloadGetsBackItsCapFromBeforeAtOnce() {
        List<Workload> lowered = List.of(new Workload("orders", Criticality.DEFAULT, 1, 8, 1, 1, false, 6));

        assertThat(policy.decide(signals(Map.of(WaitClass.CPU, 1)), lowered).caps()).containsExactly(6);
        assertThat(policy.decide(signals(Map.of(WaitClass.CPU, 3)), lowered).caps())
                .as("busy, and most sessions still another's: the surge may only have eased").containsExactly(1);
        assertThat(policy.decide(signals(Map.of(WaitClass.CPU, 3)),
                List.of(new Workload("orders", Criticality.DEFAULT, 1, 8, 2, 2, false, 6))).caps())
                .as("busy with this instance's own work").containsExactly(6);
    }

    @Test
    void aRecommendationIsWhatTheEvidenceOfOneSamplePointsTo() {
        Workload atTwenty = new Workload("orders", Criticality.DEFAULT, 1, 32, 20, 20, true);

        assertThat(policy.recommend(policy.read(signals(Map.of(WaitClass.LOCK, 19, WaitClass.CPU, 1)), 20), atTwenty))
                .as("one makes progress on the hot row, one is next").isEqualTo(2);
        assertThat(policy.recommend(policy.read(signals(Map.of(WaitClass.CPU, 20)), 20), atTwenty))
                .as("its share of 4 processors").isEqualTo(4);
        Workload atFour = new Workload("orders", Criticality.DEFAULT, 1, 32, 4, 4, true);
        assertThat(policy.recommend(policy.read(signals(Map.of(WaitClass.CPU, 2)), 4), atFour))
                .as("healthy and queueing: as far as the idle processors go").isEqualTo(8);
        assertThat(policy.recommend(policy.read(signals(Map.of(WaitClass.CPU, 4)), 4), atFour))
                .as("busy: the last recommendation").isEqualTo(4);
        assertThat(new SaturationPolicy(SamplerSettings.UNKNOWN_CPUS)
                .recommend(policy.read(signals(Map.of(WaitClass.CPU, 20)), 20), atTwenty))
                .as("no processor count: nothing to estimate from").isEqualTo(20);
        assertThat(policy.recommend(policy.read(signals(Map.of(WaitClass.CPU, 1)), 4),
                new Workload("orders", Criticality.DEFAULT, 1, 6, 4, 4, true)))
                .as("never past the most it may recommend").isEqualTo(6);
        assertThat(policy.recommend(policy.read(signals(Map.of(WaitClass.LOCK, 19, WaitClass.CPU, 1)), 0),
                new Workload("reports", Criticality.SHEDDABLE, 1, 8, 5, 0, false)))
                .as("running nothing, it gives no evidence of its own").isEqualTo(5);
    }

    @Test
    void aBusyDatabaseMovesNoCap() {
        List<Workload> workloads = List.of(new Workload("orders", Criticality.DEFAULT, 1, 10, 4, 4, true));

        assertThat(policy.decide(signals(Map.of(WaitClass.CPU, 4)), workloads).caps()).containsExactly(4);
    }

    @Test
    void aWorkloadOutOfRangeOrANegativeProcessorCountIsRefusedWithTheValues() {
        assertThatThrownBy(() -> new Workload("orders", Criticality.DEFAULT, 0, 1, 1, 0, false))
                .hasMessageContaining("were 0, 1, 1, 0");
        assertThatThrownBy(() -> new SaturationPolicy(-1)).hasMessageContaining("serverCpus must be at least 0, was -1");
    }

    static DatabaseSignals signals(Map<WaitClass, Integer> active) {
        return new DatabaseSignals(0L, new EnumMap<>(active), null, 0, 0, 0, null, Duration.ofMillis(1));
    }
}
