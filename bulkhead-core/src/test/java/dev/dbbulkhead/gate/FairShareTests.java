package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.testing.Await;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
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

    private final List<String> served = new CopyOnWriteArrayList<>();
    private final Map<String, QueuedCaller> callers = new LinkedHashMap<>();

    @Test
    void aLoneKeyTakesEveryPlaceRunningAndWaitingWithoutARefusalForItsShare() throws Exception {
        AdmissionGate gate = sharedGate(4, 4, Map.of());
        for (int i = 0; i < 4; i++) {
            run(gate, "noisy-" + i, NOISY);
        }
        for (int i = 4; i < 8; i++) {
            queue(gate, "noisy-" + i, NOISY);
        }

        assertThat(gate.active()).isEqualTo(4);
        assertThat(gate.waiting()).isEqualTo(4);
        leaveAll(gate);
    }

    @Test
    void aQuietKeysNextOperationRunsBeforeTheNoisyKeysBacklog() throws Exception {
        AdmissionGate gate = sharedGate(1, 8, Map.of());
        run(gate, "noisy-0", NOISY);
        queue(gate, "noisy-1", NOISY);
        queue(gate, "noisy-2", NOISY);
        queue(gate, "noisy-3", NOISY);
        queue(gate, "quiet-0", QUIET);

        serveOneByOne(gate, 4);

        assertThat(served).containsExactly("noisy-0", "noisy-1", "quiet-0", "noisy-2", "noisy-3");
        leaveAll(gate);
    }

    @Test
    void aKeyOfWeightThreeIsServedThreeTimesForEveryOnceOfAKeyOfWeightOne() throws Exception {
        AdmissionGate gate = sharedGate(1, 16, Map.of("tenant-noisy", 3));
        run(gate, "first", KEYLESS);
        for (int i = 0; i < 6; i++) {
            queue(gate, "noisy-" + i, NOISY);
        }
        for (int i = 0; i < 6; i++) {
            queue(gate, "quiet-" + i, QUIET);
        }

        serveOneByOne(gate, 8);

        assertThat(served.subList(1, 9)).containsExactly("noisy-0", "quiet-0", "noisy-1", "noisy-2", "noisy-3",
                "quiet-1", "noisy-4", "noisy-5");
        leaveAll(gate);
    }

    @Test
    void withEveryPlaceTakenTheWaiterOfTheKeyFurthestOverItsShareGivesItsPlaceToTheQuietKey() throws Exception {
        AdmissionGate gate = sharedGate(2, 2, Map.of());
        run(gate, "noisy-0", NOISY);
        run(gate, "noisy-1", NOISY);
        queue(gate, "noisy-2", NOISY);
        queue(gate, "noisy-3", NOISY);

        callers.put("quiet-0", QueuedCaller.startAs("quiet-0", gate, QUIET, served));

        assertThat(callers.get("noisy-3").outcome()).isEqualTo(RejectionReason.OVER_FAIR_SHARE.name());
        Await.until("quiet-0 queued", () -> gate.queueLength() == 2);
        assertThat(gate.availableAdmissionPermits()).as("B + Q exactly: the quiet key took the place").isZero();
        assertThat(refusal(gate, NOISY)).as("a newcomer of the noisy key comes after every waiter")
                .isEqualTo(RejectionReason.ADMISSION_FULL);
        serveOneByOne(gate, 2);
        assertThat(served).containsExactly("noisy-0", "noisy-1", "noisy-2", "quiet-0");
        leaveAll(gate);
    }

    @Test
    void operationsWithoutAKeyAreOneFlowSoLeavingTheKeyOutGainsOneShare() throws Exception {
        AdmissionGate gate = sharedGate(1, 8, Map.of());
        run(gate, "keyless-0", KEYLESS);
        queue(gate, "keyless-1", KEYLESS);
        queue(gate, "keyless-2", KEYLESS);
        queue(gate, "keyless-3", KEYLESS);
        queue(gate, "quiet-0", QUIET);
        queue(gate, "quiet-1", QUIET);

        serveOneByOne(gate, 5);

        assertThat(served).containsExactly("keyless-0", "keyless-1", "quiet-0", "keyless-2", "quiet-1", "keyless-3");
        leaveAll(gate);
    }

    @Test
    void aConfiguredKeylessKeyGivesOperationsWithoutAKeyItsWeight() throws Exception {
        AdmissionGate gate = new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(1).maxQueued(8)
                .queueWait(Duration.ofMinutes(1)).admissionRules(AdmissionRules.builder().fairShares(true)
                        .keylessKey("anonymous").keyWeights(Map.of("anonymous", 2)).build()).build());
        run(gate, "first", QUIET);
        queue(gate, "quiet-1", QUIET);
        queue(gate, "quiet-2", QUIET);
        queue(gate, "keyless-0", KEYLESS);
        queue(gate, "keyless-1", KEYLESS);
        queue(gate, "keyless-2", KEYLESS);

        serveOneByOne(gate, 5);

        assertThat(served).containsExactly("first", "quiet-1", "keyless-0", "keyless-1", "quiet-2", "keyless-2");
        leaveAll(gate);
    }

    @Test
    void noRefusalPathLeavesAPlaceBehind() throws Exception {
        AdmissionGate gate = new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(1).maxQueued(1)
                .queueWait(Duration.ZERO).admissionRules(AdmissionRules.builder().fairShares(true).build()).build());
        run(gate, "noisy-0", NOISY);

        assertThat(refusal(gate, QUIET)).as("admitted to wait, no wait allowed").isEqualTo(RejectionReason.QUEUE_TIMEOUT);
        Thread.currentThread().interrupt();
        assertThat(refusal(gate, QUIET)).isEqualTo(RejectionReason.INTERRUPTED);
        assertThat(Thread.interrupted()).isTrue();

        leaveAll(gate);
    }

    @Test
    void aMillionDistinctKeysThatNeverGotAPlaceLeaveNothingBehind() throws Exception {
        int keySlots = 64;
        AdmissionGate gate = new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(1).maxQueued(1)
                .queueWait(Duration.ZERO).admissionRules(AdmissionRules.builder().fairShares(true)
                        .keySlots(keySlots).build()).build());
        run(gate, "holder", QUIET);

        for (int i = 0; i < 1_000_000; i++) {
            // Each key queues behind the holder and leaves at once, unserved: its flow used nothing.
            assertThat(refusal(gate, OperationClass.of(Criticality.DEFAULT, "flood-" + i)))
                    .isEqualTo(RejectionReason.QUEUE_TIMEOUT);
            if (i % 1_000 == 0) {
                assertThat(gate.flowsKnown()).isLessThanOrEqualTo(keySlots);
            }
        }

        assertThat(gate.flowsKnown()).isZero();
        leaveAll(gate);
    }

    private static AdmissionGate sharedGate(int maxConcurrent, int maxQueued, Map<String, Integer> weights) {
        return new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(maxQueued)
                .queueWait(Duration.ofMinutes(1))
                .admissionRules(AdmissionRules.builder().fairShares(true).keyWeights(weights).build()).build());
    }

    /** Starts a caller that runs at once. */
    private void run(AdmissionGate gate, String name, OperationClass as) throws Exception {
        QueuedCaller caller = QueuedCaller.startAs(name, gate, as, served);
        callers.put(name, caller);
        assertThat(caller.outcome()).isEqualTo("admitted");
    }

    /** Starts a caller and returns once it is queued. */
    private void queue(AdmissionGate gate, String name, OperationClass as) {
        int queuedBefore = gate.queueLength();
        QueuedCaller caller = QueuedCaller.startAs(name, gate, as, served);
        callers.put(name, caller);
        Await.until(name + " queued", () -> gate.queueLength() == queuedBefore + 1);
    }

    /** Lets the running callers leave one at a time, {@code count} times, each time waiting for the next served. */
    private void serveOneByOne(AdmissionGate gate, int count) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            int before = served.size();
            callers.get(served.get(before - 1)).leave();
            Await.until("the next served", () -> served.size() == before + 1);
        }
    }

    private static RejectionReason refusal(AdmissionGate gate, OperationClass as) {
        try (OperationClass.Scope bound = as.bind()) {
            Permit permit;
            try {
                permit = gate.acquire();
            } catch (BulkheadRejectedException refused) {
                return refused.reason();
            }
            permit.close();
            return null;
        }
    }

    private void leaveAll(AdmissionGate gate) throws InterruptedException {
        for (QueuedCaller caller : callers.values()) {
            caller.leave();
        }
        callers.clear();
        GateModelSteps.checkIdle(gate);
    }
}
