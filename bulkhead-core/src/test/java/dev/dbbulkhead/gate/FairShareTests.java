package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class FairShareTests {

    private static final OperationClass NOISY = OperationClass.of(Criticality.DEFAULT, "tenant-noisy");
    private static final OperationClass QUIET = OperationClass.of(Criticality.DEFAULT, "tenant-quiet");

    private final List<String> served = new CopyOnWriteArrayList<>();
    private final List<QueuedCaller> inside = new ArrayList<>();

    @BeforeEach
    void theTwoTenantsHaveSlotsOfTheirOwn() {
        KeyTable table = new KeyTable(AdmissionRules.DEFAULT_KEY_SLOTS);
        assertThat(table.slotOf("tenant-noisy")).isNotEqualTo(table.slotOf("tenant-quiet"));
    }

    @Test
    void aLoneKeyTakesEveryPlaceAndShrinksToItsShareOnceAnotherKeyAsks() throws Exception {
        AdmissionGate gate = sharedGate(4, 0, Map.of());
        for (int i = 0; i < 4; i++) {
            admit(gate, NOISY);
        }
        assertThat(refusal(gate, QUIET)).as("the gate is full").isEqualTo(RejectionReason.ADMISSION_FULL);

        inside.remove(0).leave();
        assertThat(refusal(gate, NOISY)).as("3 inside, a share of 2 now that the quiet key asked")
                .isEqualTo(RejectionReason.OVER_FAIR_SHARE);
        try (OperationClass.Scope bound = QUIET.bind(); Permit permit = gate.acquire()) {
            assertThat(gate.keyTable().insideOf("tenant-quiet")).isEqualTo(1);
        }

        leaveAll();
        GateModelSteps.checkIdle(gate);
        assertThat(gate.keyTable().insideTotal()).isZero();
        assertThat(gate.keyTable().consistent()).isTrue();
    }

    @Test
    void aWeightedKeyGetsItsWeightedShareAndAKeyUnderItsShareIsAdmittedWhileItIsRefused() throws Exception {
        AdmissionGate gate = sharedGate(8, 0, Map.of("tenant-noisy", 3));
        admit(gate, QUIET);
        for (int i = 0; i < 6; i++) {
            admit(gate, NOISY);
        }

        assertThat(refusal(gate, NOISY)).as("8 × 3/4 = 6 places").isEqualTo(RejectionReason.OVER_FAIR_SHARE);
        admit(gate, QUIET);
        assertThat(gate.availableAdmissionPermits()).isZero();
        assertThat(refusal(gate, QUIET)).as("8 × 1/4 = 2 places: its own share, refused for it before the full gate")
                .isEqualTo(RejectionReason.OVER_FAIR_SHARE);

        leaveAll();
        GateModelSteps.checkIdle(gate);
        assertThat(gate.keyTable().consistent()).isTrue();
    }

    @Test
    void aKeyThatStopsAskingIsEvictedWithinTwoEpochsAndTheOtherKeyMayRefillTheGate() throws Exception {
        AdmissionGate gate = sharedGate(2, 0, Map.of());
        admit(gate, NOISY);
        admit(gate, NOISY);
        assertThat(refusal(gate, QUIET)).isEqualTo(RejectionReason.ADMISSION_FULL);
        inside.remove(0).leave();
        assertThat(gate.keyTable().countedSlots()).isEqualTo(2);

        int attempts = 1;
        while (refusal(gate, NOISY) == RejectionReason.OVER_FAIR_SHARE) {
            attempts++;
        }
        // The refusal loop ends with the noisy key admitted: once again alone, it may take the whole gate.
        assertThat(attempts).as("keyed attempts until the quiet key was evicted").isLessThanOrEqualTo(2 * 2 + 1);
        assertThat(gate.keyTable().countedSlots()).isEqualTo(1);

        leaveAll();
        GateModelSteps.checkIdle(gate);
    }

    @Test
    void noRefusalPathLeavesAPlaceOfTheKeyBehind() throws Exception {
        AdmissionGate gate = new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(1).maxQueued(1)
                .queueWait(Duration.ZERO).admissionRules(AdmissionRules.builder().fairShares(true).build()).build());
        admit(gate, NOISY);

        assertThat(refusal(gate, QUIET)).as("admitted to wait, no wait allowed").isEqualTo(RejectionReason.QUEUE_TIMEOUT);
        assertThat(gate.keyTable().insideOf("tenant-quiet")).isZero();
        Thread.currentThread().interrupt();
        assertThat(refusal(gate, QUIET)).isEqualTo(RejectionReason.INTERRUPTED);
        assertThat(Thread.interrupted()).isTrue();
        assertThat(gate.keyTable().insideOf("tenant-quiet")).isZero();

        leaveAll();
        GateModelSteps.checkIdle(gate);
        assertThat(gate.keyTable().insideTotal()).isZero();
        assertThat(gate.keyTable().consistent()).isTrue();
    }

    @Test
    void theListenerHearsOfAReleaseOnceTheKeysPlaceIsBack() {
        List<Integer> insideWhenTold = new CopyOnWriteArrayList<>();
        AdmissionGate[] gate = new AdmissionGate[1];
        gate[0] = new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(2)
                .admissionRules(AdmissionRules.builder().fairShares(true).build()).build(), new GateListener() {
                    @Override
                    public void onReleased(String workload, dev.dbbulkhead.ExecutionOutcome outcome, long heldNanos) {
                        insideWhenTold.add(gate[0].keyTable().insideOf("tenant-quiet"));
                    }
                });

        try (OperationClass.Scope bound = QUIET.bind()) {
            gate[0].acquire().close();
        }

        assertThat(insideWhenTold).containsExactly(0);
    }

    @Test
    void aMillionDistinctKeysNeverGrowTheTableAndLeaveItEmpty() throws Exception {
        AdmissionGate gate = sharedGate(4, 0, Map.of());
        KeyTable table = gate.keyTable();
        admit(gate, QUIET);

        for (int i = 0; i < 1_000_000; i++) {
            try (OperationClass.Scope bound = OperationClass.of(Criticality.DEFAULT, "flood-" + i).bind();
                 Permit permit = gate.acquire()) {
                if (i % 100_000 == 0) {
                    assertThat(table.capacity()).isEqualTo(AdmissionRules.DEFAULT_KEY_SLOTS);
                    assertThat(table.countedSlots()).isLessThanOrEqualTo(AdmissionRules.DEFAULT_KEY_SLOTS);
                }
            }
        }

        assertThat(table.capacity()).isEqualTo(AdmissionRules.DEFAULT_KEY_SLOTS);
        assertThat(table.countedSlots()).as("only the key still inside").isEqualTo(1);
        assertThat(table.insideOf("tenant-quiet")).isEqualTo(1);
        assertThat(table.consistent()).isTrue();
        leaveAll();
        assertThat(table.insideTotal()).isZero();
        GateModelSteps.checkIdle(gate);
    }

    @Test
    void operationsWithoutAKeyAreOneFlowHeldToOneShare() throws Exception {
        AdmissionGate gate = sharedGate(4, 0, Map.of());
        OperationClass keyless = OperationClass.of(Criticality.DEFAULT);
        admit(gate, keyless);
        admit(gate, keyless);
        admit(gate, QUIET);

        assertThat(refusal(gate, keyless)).as("4 × 1/2 = 2 places for every operation without a key, together")
                .isEqualTo(RejectionReason.OVER_FAIR_SHARE);
        admit(gate, QUIET);
        assertThat(gate.keyTable().insideOf(AdmissionRules.DEFAULT_KEYLESS_KEY)).isEqualTo(2);
        assertThat(gate.keyTable().insideOf("tenant-quiet")).as("the victim gets its share").isEqualTo(2);

        leaveAll();
        GateModelSteps.checkIdle(gate);
        assertThat(gate.keyTable().consistent()).isTrue();
    }

    @Test
    void aConfiguredKeylessKeyGivesOperationsWithoutAKeyItsWeight() throws Exception {
        AdmissionGate gate = new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(4).admissionRules(AdmissionRules
                .builder().fairShares(true).keylessKey("anonymous").keyWeights(Map.of("anonymous", 3)).build())
                .build());
        OperationClass keyless = OperationClass.of(Criticality.DEFAULT);
        admit(gate, QUIET);
        for (int i = 0; i < 3; i++) {
            admit(gate, keyless);
        }

        assertThat(gate.keyTable().insideOf("anonymous")).as("4 × 3/4 = 3 places").isEqualTo(3);
        assertThat(gate.config().admissionRules().keylessKey()).isEqualTo("anonymous");

        leaveAll();
        GateModelSteps.checkIdle(gate);
    }

    private static AdmissionGate sharedGate(int maxConcurrent, int maxQueued, Map<String, Integer> weights) {
        return new AdmissionGate("tenants", GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(maxQueued)
                .admissionRules(AdmissionRules.builder().fairShares(true).keyWeights(weights).build()).build());
    }

    private void admit(AdmissionGate gate, OperationClass as) throws Exception {
        QueuedCaller caller = QueuedCaller.startAs(as.key().orElse("keyless") + "-" + inside.size(), gate, as, served);
        assertThat(caller.outcome()).isEqualTo("admitted");
        inside.add(caller);
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

    private void leaveAll() throws InterruptedException {
        for (QueuedCaller caller : inside) {
            caller.leave();
        }
        inside.clear();
    }
}
