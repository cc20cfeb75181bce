package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class CriticalityTests {

    private static final OperationClass CRITICAL = OperationClass.of(Criticality.CRITICAL);
    private static final OperationClass DEFAULT = OperationClass.of(Criticality.DEFAULT);
    private static final OperationClass SHEDDABLE = OperationClass.of(Criticality.SHEDDABLE);

    private final List<String> served = new CopyOnWriteArrayList<>();
    private final List<String> told = new CopyOnWriteArrayList<>();
    /** B = 4, Q = 0: a quarter held back for critical work, half of it from sheddable work. */
    private final AdmissionGate gate = new AdmissionGate("checkout", GateConfig.builder().maxConcurrent(4)
            .admissionRules(AdmissionRules.builder().criticalReserve(0.25).sheddableReserve(0.5).build()).build(),
            new GateListener() {
                @Override
                public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
                    told.add(reason + " with " + gate().availableAdmissionPermits() + " places free");
                }
            });
    private final List<QueuedCaller> inside = new ArrayList<>();

    private AdmissionGate gate() {
        return gate;
    }

    @Test
    void theLeastCriticalIsRefusedFirstAndTheReserveIsLeftToCriticalWork() throws Exception {
        admit(SHEDDABLE);
        admit(SHEDDABLE);
        assertThat(refusal(SHEDDABLE)).as("half the places are held back from sheddable work")
                .isEqualTo(RejectionReason.SHED_BY_CRITICALITY);

        admit(DEFAULT);
        assertThat(refusal(DEFAULT)).as("the last place is held back for critical work")
                .isEqualTo(RejectionReason.SHED_BY_CRITICALITY);
        assertThat(refusal(SHEDDABLE)).isEqualTo(RejectionReason.SHED_BY_CRITICALITY);
        assertThat(refusal(null)).as("unclassified work is default work").isEqualTo(RejectionReason.SHED_BY_CRITICALITY);

        admit(CRITICAL);
        assertThat(refusal(CRITICAL)).as("a full gate refuses critical work too, as full")
                .isEqualTo(RejectionReason.ADMISSION_FULL);
        assertThat(told).as("each refusal told with nothing of its own held").containsExactly(
                "SHED_BY_CRITICALITY with 2 places free", "SHED_BY_CRITICALITY with 1 places free",
                "SHED_BY_CRITICALITY with 1 places free", "SHED_BY_CRITICALITY with 1 places free",
                "ADMISSION_FULL with 0 places free");

        for (QueuedCaller caller : inside) {
            caller.leave();
        }
        GateModelSteps.checkIdle(gate);
    }

    @Test
    void criticalWorkFillsTheWholeGateAndDefaultWorkItsUnreservedPart() throws Exception {
        for (int i = 0; i < 4; i++) {
            admit(CRITICAL);
        }
        for (QueuedCaller caller : inside) {
            caller.leave();
        }
        inside.clear();
        for (int i = 0; i < 3; i++) {
            admit(DEFAULT);
        }
        assertThat(refusal(DEFAULT)).isEqualTo(RejectionReason.SHED_BY_CRITICALITY);

        for (QueuedCaller caller : inside) {
            caller.leave();
        }
        GateModelSteps.checkIdle(gate);
    }

    @Test
    void aGateWithoutRulesIgnoresTheClassBoundToTheThread() throws Exception {
        AdmissionGate plain = new AdmissionGate("plain", GateConfig.builder().maxConcurrent(1).build());

        try (OperationClass.Scope bound = SHEDDABLE.bind(); Permit permit = plain.acquire()) {
            assertThat(permit.isReleased()).isFalse();
        }
        GateModelSteps.checkIdle(plain);
    }

    private void admit(OperationClass as) throws Exception {
        QueuedCaller caller = QueuedCaller.startAs(as.criticality() + "-" + inside.size(), gate, as, served);
        assertThat(caller.outcome()).isEqualTo("admitted");
        inside.add(caller);
    }

    private RejectionReason refusal(OperationClass as) {
        if (as == null) {
            return catchThrowableOfType(BulkheadRejectedException.class, gate::acquire).reason();
        }
        try (OperationClass.Scope bound = as.bind()) {
            return catchThrowableOfType(BulkheadRejectedException.class, gate::acquire).reason();
        }
    }
}
