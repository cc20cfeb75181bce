package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.testing.Await;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fair shares order waiting work: the next free place goes to the flow with the least weighted use, nobody is refused
 * for a share while a place is free, and with every place taken the waiter of the flow furthest over its share gives
 * its place up.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class FairShareTests {

    private static final OperationClass NOISY = OperationClass.of(Criticality.DEFAULT, "tenant-noisy");
    private static final OperationClass QUIET = OperationClass.of(Criticality.DEFAULT, "tenant-quiet");
    private static final OperationClass KEYLESS = OperationClass.of(Criticality.DEFAULT);

    private final CallersInTurn turns = new CallersInTurn();

    @Test
    void aLoneKeyTakesEveryPlaceRunningAndWaitingWithoutARefusalForItsShare() throws Exception {
        AdmissionGate gate = sharedGate(4, 4, Map.of());
        for (int i = 0; i < 4; i++) {
            turns.run(gate, "noisy-" + i, NOISY);
        }
        for (int i = 4; i < 8; i++) {
            turns.queue(gate, "noisy-" + i, NOISY);
        }

        assertThat(gate.active()).isEqualTo(4);
        assertThat(gate.waiting()).isEqualTo(4);
        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void aQuietKeysNextOperationRunsBeforeTheNoisyKeysBacklog() throws Exception {
        AdmissionGate gate = sharedGate(1, 8, Map.of());
        turns.run(gate, "noisy-0", NOISY);
        turns.queue(gate, "noisy-1", NOISY);
        turns.queue(gate, "noisy-2", NOISY);
        turns.queue(gate, "noisy-3", NOISY);
        turns.queue(gate, "quiet-0", QUIET);

        turns.serveOneByOne(4);

        assertThat(turns.served()).containsExactly("noisy-0", "noisy-1", "quiet-0", "noisy-2", "noisy-3");
        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void aQuietKeysBurstRunsBeforeTheNoisyKeysBacklogUpToTheUseItSavedUp() throws Exception {
        AdmissionGate gate = sharedGate(1, 16, Map.of());
        turns.run(gate, "noisy-0", NOISY);
        for (int i = 1; i <= 12; i++) {
            turns.queue(gate, "noisy-" + i, NOISY);
        }
        // Eight grants move the virtual time to the eighth waiter's start; the noisy key's next starts one further.
        turns.serveOneByOne(8);
        for (int i = 0; i < 6; i++) {
            turns.queue(gate, "quiet-" + i, QUIET);
        }

        turns.serveOneByOne(8);

        // Four operations saved up behind the virtual time, and the one any key starts there, go before the noisy
        // key's next; the sixth waits its turn beside it. Without saving, the quiet key's second went after the noisy
        // key's next, and so on, one for one.
        assertThat(turns.served().subList(9, 17)).containsExactly("quiet-0", "quiet-1", "quiet-2", "quiet-3",
                "quiet-4", "noisy-9", "quiet-5", "noisy-10");
        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void aKeyOfWeightThreeIsServedThreeTimesForEveryOnceOfAKeyOfWeightOne() throws Exception {
        AdmissionGate gate = sharedGate(1, 16, Map.of("tenant-noisy", 3));
        turns.run(gate, "first", KEYLESS);
        for (int i = 0; i < 6; i++) {
            turns.queue(gate, "noisy-" + i, NOISY);
        }
        for (int i = 0; i < 6; i++) {
            turns.queue(gate, "quiet-" + i, QUIET);
        }

        turns.serveOneByOne(8);

        assertThat(turns.served().subList(1, 9)).containsExactly("noisy-0", "quiet-0", "noisy-1", "noisy-2", "noisy-3",
                "quiet-1", "noisy-4", "noisy-5");
        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void withEveryPlaceTakenTheWaiterOfTheKeyFurthestOverItsShareGivesItsPlaceToTheQuietKey() throws Exception {
        AdmissionGate gate = sharedGate(2, 2, Map.of());
        turns.run(gate, "noisy-0", NOISY);
        turns.run(gate, "noisy-1", NOISY);
        turns.queue(gate, "noisy-2", NOISY);
        turns.queue(gate, "noisy-3", NOISY);

        turns.start(gate, "quiet-0", QUIET);

        assertThat(turns.caller("noisy-3").outcome()).isEqualTo(RejectionReason.OVER_FAIR_SHARE.name());
        Await.until("quiet-0 queued", () -> gate.queueLength() == 2);
        assertThat(gate.availableAdmissionPermits()).as("B + Q exactly: the quiet key took the place").isZero();
        assertThat(CallersInTurn.refusal(gate, NOISY)).as("a newcomer of the noisy key comes after every waiter")
                .isEqualTo(RejectionReason.ADMISSION_FULL);
        turns.serveOneByOne(2);
        assertThat(turns.served()).containsExactly("noisy-0", "noisy-1", "noisy-2", "quiet-0");
        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void operationsWithoutAKeyAreOneFlowSoLeavingTheKeyOutGainsOneShare() throws Exception {
        AdmissionGate gate = sharedGate(1, 8, Map.of());
        turns.run(gate, "keyless-0", KEYLESS);
        turns.queue(gate, "keyless-1", KEYLESS);
        turns.queue(gate, "keyless-2", KEYLESS);
        turns.queue(gate, "keyless-3", KEYLESS);
        turns.queue(gate, "quiet-0", QUIET);
        turns.queue(gate, "quiet-1", QUIET);

        turns.serveOneByOne(5);

        assertThat(turns.served()).containsExactly("keyless-0", "keyless-1", "quiet-0", "keyless-2", "quiet-1", "keyless-3");
        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void aConfiguredKeylessKeyGivesOperationsWithoutAKeyItsWeight() throws Exception {
        AdmissionGate gate = new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(1).maxQueued(8)
                .queueWait(Duration.ofMinutes(1)).admissionRules(AdmissionRules.builder().fairShares(true)
                        .keylessKey("anonymous").keyWeights(Map.of("anonymous", 2)).build()).build());
        turns.run(gate, "first", QUIET);
        turns.queue(gate, "quiet-1", QUIET);
        turns.queue(gate, "quiet-2", QUIET);
        turns.queue(gate, "keyless-0", KEYLESS);
        turns.queue(gate, "keyless-1", KEYLESS);
        turns.queue(gate, "keyless-2", KEYLESS);

        turns.serveOneByOne(5);

        assertThat(turns.served()).containsExactly("first", "quiet-1", "keyless-0", "keyless-1", "quiet-2", "keyless-2");
        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void noRefusalPathLeavesAPlaceBehind() throws Exception {
        AdmissionGate gate = new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(1).maxQueued(1)
                .queueWait(Duration.ZERO).admissionRules(AdmissionRules.builder().fairShares(true).build()).build());
        turns.run(gate, "noisy-0", NOISY);

        assertThat(CallersInTurn.refusal(gate, QUIET)).as("admitted to wait, no wait allowed")
                .isEqualTo(RejectionReason.QUEUE_TIMEOUT);
        Thread.currentThread().interrupt();
        assertThat(CallersInTurn.refusal(gate, QUIET)).isEqualTo(RejectionReason.INTERRUPTED);
        assertThat(Thread.interrupted()).isTrue();

        turns.leaveAllAndCheckIdle(gate);
    }

    @Test
    void aMillionDistinctKeysThatNeverGotAPlaceLeaveNothingBehind() throws Exception {
        int keySlots = 64;
        AdmissionGate gate = new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(1).maxQueued(1)
                .queueWait(Duration.ZERO).admissionRules(AdmissionRules.builder().fairShares(true)
                        .keySlots(keySlots).build()).build());
        turns.run(gate, "holder", QUIET);

        for (int i = 0; i < 1_000_000; i++) {
            // Each key queues behind the holder and leaves at once, unserved: its flow used nothing.
            assertThat(CallersInTurn.refusal(gate, OperationClass.of(Criticality.DEFAULT, "flood-" + i)))
                    .isEqualTo(RejectionReason.QUEUE_TIMEOUT);
            if (i % 1_000 == 0) {
                assertThat(gate.flowsKnown()).isLessThanOrEqualTo(keySlots);
            }
        }

        assertThat(gate.flowsKnown()).isZero();
        turns.leaveAllAndCheckIdle(gate);
    }

    private static AdmissionGate sharedGate(int maxConcurrent, int maxQueued, Map<String, Integer> weights) {
        return new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(maxQueued)
                .queueWait(Duration.ofMinutes(1))
                .admissionRules(AdmissionRules.builder().fairShares(true).keyWeights(weights).build()).build());
    }
}
