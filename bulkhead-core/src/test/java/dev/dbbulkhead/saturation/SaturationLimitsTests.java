package dev.dbbulkhead.saturation;

import static dev.dbbulkhead.saturation.SaturationPolicyTests.signals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.saturation.SaturationLimits.Governed;
import dev.dbbulkhead.saturation.SaturationLimits.Mode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The mechanism: what it applies, what it only recommends, and what it writes, sample by sample. */
class SaturationLimitsTests {

    private final RecordingLogger log = new RecordingLogger();
    private final List<String> told = log.lines();
    private final List<Integer> appliedToOrders = new CopyOnWriteArrayList<>();
    private final List<Integer> appliedToReports = new CopyOnWriteArrayList<>();
    private final AtomicInteger ordersRunning = new AtomicInteger(8);
    private final AtomicInteger reportsRunning = new AtomicInteger(8);

    @Test
    void aSteeredWorkloadGetsEachNewCapAndARecommendedOneOnlyShowsTheBTheEvidencePointsTo() {
        SaturationLimits limits = limits(Mode.STEER, Mode.RECOMMEND);

        limits.onSample(signalsAt(0, Map.of(WaitClass.LOCK, 4, WaitClass.CPU, 12)));

        assertThat(appliedToOrders).as("the only steered workload takes the turn of being lowered")
                .containsExactly(5);
        assertThat(limits.limit("reports").orElseThrow().cap()).as("one sample is no window: the most it may"
                + " recommend").isEqualTo(8);
        for (int second = 1; second < RecommendationWindow.LEAST_SAMPLES; second++) {
            limits.onSample(signalsAt(second, Map.of(WaitClass.LOCK, 4, WaitClass.CPU, 12)));
        }
        assertThat(appliedToReports).as("only recommended").isEmpty();
        assertThat(limits.limit("reports").orElseThrow().cap()).as("8 run, 4 wait: 4 make progress, and one is next")
                .isEqualTo(5);
    }

    @Test
    void withoutASampleEveryCapHoldsItsLastValue() {
        SaturationLimits limits = limits(Mode.STEER, Mode.STEER);
        limits.onSample(signals(Map.of(WaitClass.LOCK, 4, WaitClass.CPU, 12)));
        List<SaturationLimits.Limit> before = limits.limits();

        // The sampler failing or hanging calls nothing: nothing moves, however much time passes.
        assertThat(limits.limits()).isEqualTo(before);
        assertThat(appliedToReports).containsExactly(5);
        assertThat(appliedToOrders).isEmpty();
    }

    @Test
    void aSurgeFromOutsideLowersTheCapAndItsEndGivesBackTheCapFromBeforeIt() {
        assertThat(capsThroughASurge(20, 0)).as("lowered twice while another's work saturated, then given back at once")
                .containsExactly(3, 2, 8);
    }

    @Test
    void aSurgeWhoseFirstSampleReadAsThisInstancesOwnStillGivesBackTheCapFromBeforeTheSaturationBegan() {
        // Only 2 of the other client's sessions happen to be active against 4 of this instance's operations.
        assertThat(capsThroughASurge(6, 0))
                .as("the surge shows itself at its second sample; its end gives back the cap of before")
                .containsExactly(3, 2, 8);
    }

    @Test
    void aSurgeLongAfterTheInstancesOwnSaturationBeganGivesBackOnlyTheCapItFound() {
        // This instance's own saturation: cut to 3, then held while busy for longer than a surge's onset.
        assertThat(capsThroughASurge(6, SaturationLimits.SURGE_ONSET_SAMPLES))
                .as("the cap the surge found was the instance's own cut, and it is what comes back")
                .containsExactly(3, 2, 3);
    }

    @Test
    void aChangeOfTheDatabasesStateIsWrittenOnceWithItsEvidence() {
        SaturationLimits limits = limits(Mode.STEER, Mode.STEER);

        limits.onSample(signalsAt(0, Map.of(WaitClass.CPU, 1)));
        limits.onSample(signalsAt(1, Map.of(WaitClass.CPU, 1)));
        limits.onSample(signalsAt(2, Map.of(WaitClass.LOCK, 4, WaitClass.CPU, 12)));
        limits.onSample(signalsAt(3, Map.of(WaitClass.CPU, 1)));
        limits.onSample(signalsAt(11, Map.of(WaitClass.LOCK, 4, WaitClass.CPU, 12)));

        assertThat(told).as("a line at most every ten seconds").hasSize(2);
        assertThat(told.get(0)).startsWith("info: The database is healthy: 1 sessions on a processor or a disk for 4"
                + " processors, 0 waiting for a lock, 1 active and 1 in a transaction, against 16 operations of this"
                + " instance's");
        assertThat(told.get(1)).startsWith("info: The database shows lock contention")
                .endsWith("(2 changes of state since the last line)");
        assertThat(limits.lastReading().orElseThrow().state()).isEqualTo(SaturationPolicy.State.LOCK_CONTENTION);
    }

    @Test
    void onAHotRowTheBThatWritesMostIsFoundAboveTheCutToTheLockAndOneMore() {
        // A transaction that spends time outside the lock as well: one more waiting session keeps the lock held
        // through the next holder's round trip, up to B = 4; past it, waiting costs more than it gains.
        List<Integer> applied = hotRow(Map.of(1, 200, 2, 260, 3, 280, 4, 300, 5, 290), 250, 20);

        assertThat(applied).as("cut to the lock and one more, then one up at a time while it writes clearly more,"
                + " and back from the one that writes less").containsExactly(2, 3, 4, 5, 4);
    }

    @Test
    void onAHotRowWhereOnlyTheLockCostsTimeBStaysAtTheCutAfterOneTryAbove() {
        List<Integer> applied = hotRow(Map.of(), 250, 20);

        assertThat(applied).as("B = 3 writes no more than 2: less concurrency, as much written").containsExactly(2, 3, 2);
    }

    @Test
    void theRatesOfWritesMeasuredAtEachBAreShownForTheOneSteeredWorkloadOnly() {
        List<Integer> applied = new CopyOnWriteArrayList<>();
        AtomicInteger inForce = new AtomicInteger(8);
        SaturationLimits limits = hotRowLimits(applied, inForce);
        assertThat(limits.measuredWritesPerSecond("orders")).as("before any sample").isEmpty();
        Map<Integer, Integer> writesPerSecond = Map.of(2, 200, 3, 260);
        long transactionId = 1_000;
        for (int second = 0; second < 3; second++) {
            limits.onSample(signalsAt(second, Map.of(WaitClass.LOCK, inForce.get() - 1, WaitClass.CPU, 1),
                    transactionId));
            transactionId += writesPerSecond.getOrDefault(inForce.get(), 250);
        }

        assertThat(applied).containsExactly(2, 3, 4);
        assertThat(limits.measuredWritesPerSecond("orders")).as("B = 4 has held no whole interval yet")
                .containsExactly(Map.entry(2, 200.0), Map.entry(3, 260.0));
        assertThat(limits.measuredWritesPerSecond("reports")).as("not a workload of this limit").isEmpty();
        SaturationLimits twoSteered = limits(Mode.STEER, Mode.STEER);
        twoSteered.onSample(signalsAt(0, Map.of(WaitClass.LOCK, 4, WaitClass.CPU, 12), transactionId));
        twoSteered.onSample(signalsAt(1, Map.of(WaitClass.LOCK, 4, WaitClass.CPU, 12), transactionId + 300));
        assertThat(twoSteered.measuredWritesPerSecond("orders")).as("the writes of two cannot be told apart")
                .isEmpty();
    }

    @Test
    void aLoneLockWaiterBesideBusyProcessorsMakesTheClimbTryNoMore() {
        List<Integer> applied = new CopyOnWriteArrayList<>();
        AtomicInteger inForce = new AtomicInteger(8);
        SaturationLimits limits = hotRowLimits(applied, inForce);
        long transactionId = 1_000;
        limits.onSample(signalsAt(0, Map.of(WaitClass.LOCK, 7, WaitClass.CPU, 1), transactionId));
        for (int second = 1; second < 10; second++) {
            transactionId += 100 * inForce.get();
            // Three of four processors busy: the server has little room, whatever one waiter shows of a lock.
            limits.onSample(signalsAt(second, Map.of(WaitClass.LOCK, 1, WaitClass.CPU, 3), transactionId));
        }

        assertThat(applied).as("cut by the contention, then held as the busy server asks").containsExactly(2);
    }

    @Test
    void withoutTheServersTransactionIdsTheCutToTheLockAndOneMoreStands() {
        List<Integer> applied = new CopyOnWriteArrayList<>();
        AtomicInteger inForce = new AtomicInteger(8);
        SaturationLimits limits = hotRowLimits(applied, inForce);
        for (int second = 0; second < 20; second++) {
            int b = inForce.get();
            limits.onSample(signalsAt(second, Map.of(WaitClass.LOCK, b - 1, WaitClass.CPU, 1)));
        }

        assertThat(applied).containsExactly(2);
    }

    /**
     * The caps applied over {@code seconds} samples to one steered workload of B = 8 on a hot row, where every running
     * operation but the lock's holder waits for it and the server writes {@code writesPerSecond} at each B (or
     * {@code otherwise}).
     */
    private List<Integer> hotRow(Map<Integer, Integer> writesPerSecond, int otherwise, int seconds) {
        List<Integer> applied = new CopyOnWriteArrayList<>();
        AtomicInteger inForce = new AtomicInteger(8);
        SaturationLimits limits = hotRowLimits(applied, inForce);
        long transactionId = 1_000;
        for (int second = 0; second < seconds; second++) {
            int b = inForce.get();
            limits.onSample(signalsAt(second, Map.of(WaitClass.LOCK, b - 1, WaitClass.CPU, 1), transactionId));
            transactionId += writesPerSecond.getOrDefault(inForce.get(), otherwise);
        }
        return applied;
    }

    private SaturationLimits hotRowLimits(List<Integer> applied, AtomicInteger inForce) {
        return new SaturationLimits(new SaturationPolicy(4), List.of(new Governed("orders", Mode.STEER,
                Criticality.DEFAULT, 1, () -> 8, inForce::get, () -> false, cap -> {
                    applied.add(cap);
                    inForce.set(cap);
                })), log);
    }

    /**
     * The caps applied to one steered workload asking for B = 8 (floor 1, running 4, never queueing) through: a first
     * saturated sample of {@code firstOnProcessors} sessions, {@code busySamples} busy ones, a sample of 20 sessions
     * (surely most of them another client's) and a healthy one.
     */
    private List<Integer> capsThroughASurge(int firstOnProcessors, int busySamples) {
        List<Integer> applied = new CopyOnWriteArrayList<>();
        AtomicInteger running = new AtomicInteger(4);
        SaturationLimits limits = new SaturationLimits(new SaturationPolicy(4), List.of(new Governed("orders",
                Mode.STEER, Criticality.DEFAULT, 1, () -> 8, running::get, () -> false, applied::add)), log);
        limits.onSample(signals(Map.of(WaitClass.CPU, firstOnProcessors)));
        running.set(3);
        for (int sample = 0; sample < busySamples; sample++) {
            limits.onSample(signals(Map.of(WaitClass.CPU, 3)));
        }
        limits.onSample(signals(Map.of(WaitClass.CPU, 20)));
        running.set(2);
        limits.onSample(signals(Map.of(WaitClass.CPU, 1)));
        return applied;
    }

    private static DatabaseSignals signalsAt(int second, Map<WaitClass, Integer> active) {
        return signalsAt(second, active, DatabaseSignals.NOT_READ);
    }

    private static DatabaseSignals signalsAt(int second, Map<WaitClass, Integer> active, long nextTransactionId) {
        DatabaseSignals at = SaturationPolicyTests.signals(active);
        return new DatabaseSignals(second * 1_000_000_000L, at.activeSessions(), null, 0, 0, 0, null,
                at.queryTime(), nextTransactionId, (int) DatabaseSignals.NOT_READ);
    }

    private SaturationLimits limits(Mode orders, Mode reports) {
        return new SaturationLimits(new SaturationPolicy(4), List.of(
                new Governed("orders", orders, Criticality.DEFAULT, 2, () -> 8, ordersRunning::get, () -> true,
                        appliedToOrders::add),
                new Governed("reports", reports, Criticality.SHEDDABLE, 2, () -> 8, reportsRunning::get, () -> true,
                        appliedToReports::add)), log);
    }
}
