package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a release of a gate with a queue of its own yields for: the wait it handed its slot to, until that wait's
 * thread has run, and no other. Releases that yielded while any later hand-over's waiter had yet to run never stopped
 * under a stream of hand-overs and held their callers for seconds (the hand-over benchmark, "releasers held for
 * seconds"); that is a matter of time, measured there, and this is the rule that keeps it from coming back.
 */
class HandOverPendingTests {

    static List<AdmissionCounts> countsWithAQueueOfTheirOwn() {
        GateConfig.Builder oneSlot = GateConfig.builder().maxConcurrent(1).maxQueued(2).queueWait(Duration.ofHours(1));
        return List.of(
                CoDelCounts.create(oneSlot.queueDiscipline(QueueDiscipline.CODEL).queueTargetDelay(Duration.ofMinutes(1))
                        .queueInterval(Duration.ofMinutes(1)).build(), System::nanoTime),
                ScheduledCounts.create(GateConfig.builder().maxConcurrent(1).maxQueued(2).queueWait(Duration.ofHours(1))
                        .admissionRules(AdmissionRules.builder().inProgressFirst(true).build()).build(), System::nanoTime));
    }

    @ParameterizedTest
    @MethodSource("countsWithAQueueOfTheirOwn")
    void aReleaseWaitsForItsOwnWaiterOnlyNotForOneHandedASlotAfterIt(AdmissionCounts counts) {
        HandedWait mine = new HandedWait() {
        };
        HandedWait handedAfterMine = new HandedWait() {
        };

        assertThat(counts.handOverPending(mine)).as("my waiter, yet to run").isTrue();
        mine.endedOnItsThread();

        assertThat(counts.handOverPending(mine)).as("my waiter, run").isFalse();
        assertThat(counts.handOverPending(handedAfterMine)).as("another release's waiter, yet to run").isTrue();
    }

    @ParameterizedTest
    @MethodSource("countsWithAQueueOfTheirOwn")
    void aReleaseThatHandedNothingOverHasNothingToYieldFor(AdmissionCounts counts) {
        assertThat(counts.handOverPending(null)).isFalse();
    }
}
