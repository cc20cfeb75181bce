package dev.dbbulkhead.gate;

import static dev.dbbulkhead.gate.GateModelSteps.check;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of a gate with admission rules — a third of its places held back for critical work, fair
 * shares between two keys, the operations of requests in progress first — so that waiters are ordered by
 * criticality, by their requests' progress and by their flows' use, and the last of them gives its place to a
 * newcomer that comes before it; under every interleaving the model checker explores, with critical, default,
 * sheddable and in-progress operations of either key, and operations without a key (one flow of the rules' keyless
 * key).
 *
 * <p>What is checked:
 * <ul>
 *   <li>B and B + Q hold, and each permit is released once;</li>
 *   <li>reserved places are never taken by non-critical work: at no moment are more non-critical operations inside
 *       than the places left unreserved (a ghost counted between admission and release, so never above the real
 *       number) — a displacement hands a place from one operation to another without ever adding one;</li>
 *   <li>reasons stay apart: a critical operation is never refused for criticality, a key — operations without one
 *       being one flow — gives its place for its share only once another operation of its own asked before it, and
 *       nothing times out;</li>
 *   <li>no refusal path leaks a place: every permit is back at the end, nothing is parked, and the flows remembered
 *       never exceed the keys there are — at the end and at any moment an observer looks.</li>
 * </ul>
 */
@Param(name = "key", gen = IntGen.class, conf = "0:1")
@Timeout(value = 15, unit = TimeUnit.MINUTES) // only against a hang of the harness; Lincheck reports a blocked model thread itself
public class AdmissionGateRulesModelCheckTests {

    /** Long enough never to expire in a model run: an admitted waiter is always handed a permit eventually. */
    private static final Duration QUEUE_WAIT = Duration.ofHours(1);
    private static final int MAX_CONCURRENT = 1;
    private static final int MAX_QUEUED = 2;
    private static final AdmissionRules RULES = AdmissionRules.builder().criticalReserve(0.34).fairShares(true)
            .inProgressFirst(true).keySlots(16).build();
    /** What non-critical work may fill: B + Q less the half held back. */
    private static final int NON_CRITICAL_CEILING = RULES.admittedCeiling(Criticality.DEFAULT, MAX_CONCURRENT + MAX_QUEUED);
    private static final String[] KEYS = {"tenant-0", "tenant-1"};
    /** The index the operations without a key are counted under: one flow, as the gate counts them. */
    private static final int KEYLESS = KEYS.length;

    private final AdmissionGate gate = new AdmissionGate("rules", GateConfig.builder().maxConcurrent(MAX_CONCURRENT)
            .maxQueued(MAX_QUEUED).queueWait(QUEUE_WAIT).admissionRules(RULES).build());
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger nonCriticalInside = new AtomicInteger();
    /** Per key, operations that began asking: ever growing. */
    private final AtomicIntegerArray enteredByKey = new AtomicIntegerArray(KEYS.length + 1);

    @Operation
    public void enterCritical(@Param(name = "key") int key) {
        enter(Criticality.CRITICAL, key);
    }

    @Operation
    public void enterDefault(@Param(name = "key") int key) {
        enter(Criticality.DEFAULT, key);
    }

    @Operation
    public void enterSheddable(@Param(name = "key") int key) {
        enter(Criticality.SHEDDABLE, key);
    }

    @Operation
    public void enterWithoutKey() {
        enter(Criticality.DEFAULT, KEYLESS);
    }

    /** A default operation of a request that already committed one: served before new requests' default work. */
    @Operation
    public void enterInProgress(@Param(name = "key") int key) {
        try (RequestCommits.Scope request = RequestCommits.track()) {
            ThreadRecord.current().operationEnded(true);
            enter(Criticality.DEFAULT, key);
        }
    }

    /** The figures a gauge reads, and the flows the order remembers, at any moment. */
    @Operation
    public void observe() {
        int active = gate.active();
        int waiting = gate.waiting();
        check(active >= 0 && active <= MAX_CONCURRENT, "active() = " + active);
        check(waiting >= 0 && waiting <= MAX_CONCURRENT + MAX_QUEUED, "waiting() = " + waiting);
        int flows = gate.flowsKnown();
        check(flows >= 0 && flows <= KEYS.length + 1, "more flows known than there are, the keyless one included");
    }

    private void enter(Criticality criticality, int key) {
        enteredByKey.incrementAndGet(key);
        OperationClass as = key == KEYLESS ? OperationClass.of(criticality) : OperationClass.of(criticality, KEYS[key]);
        Permit permit;
        try (OperationClass.Scope bound = as.bind()) {
            permit = gate.acquire();
        } catch (BulkheadRejectedException refused) {
            checkRefusal(refused.reason(), criticality, key);
            return;
        }
        runAndRelease(permit, criticality != Criticality.CRITICAL);
    }

    /**
     * A waiter gives its place for its flow's share only when its flow had used the gate before it: another operation
     * of its key began asking first.
     */
    private void checkRefusal(RejectionReason reason, Criticality criticality, int key) {
        switch (reason) {
            case ADMISSION_FULL -> { }
            case SHED_BY_CRITICALITY -> check(criticality != Criticality.CRITICAL, "critical work shed for criticality");
            // Pushed out by more critical work, or by a request in progress; the model's operations are all new
            // requests', so only more critical work can push one out.
            case PUSHED_OUT -> check(criticality != Criticality.CRITICAL, "critical work pushed out");
            case OVER_FAIR_SHARE -> check(enteredByKey.get(key) >= 2,
                    "refused for its share before any other operation of its key asked (key " + key + ")");
            default -> throw new AssertionError("refused as " + reason);
        }
    }

    private void runAndRelease(Permit permit, boolean nonCritical) {
        try {
            int runningNow = running.incrementAndGet();
            check(runningNow <= MAX_CONCURRENT, "running " + runningNow + " > B " + MAX_CONCURRENT);
            if (nonCritical) {
                int inside = nonCriticalInside.incrementAndGet();
                check(inside <= NON_CRITICAL_CEILING, "non-critical work took a reserved place: " + inside);
                nonCriticalInside.decrementAndGet();
            }
            running.decrementAndGet();
        } finally {
            permit.close();
            permit.close();
        }
        check(permit.isReleased(), "permit not released after close");
    }

    @Validate
    public void everyPlaceIsBack() {
        GateModelSteps.checkIdle(gate);
    }

    @Test
    @DisplayName("model checking: criticality reserves, the order of waiters and displacement keep B and B+Q, never give a reserved place to non-critical work, keep their reasons apart and leak no place, under all explored interleavings")
    void modelCheck() {
        assertThat(NON_CRITICAL_CEILING).as("non-critical work may run and wait, critical work takes the last place")
                .isEqualTo(2);
        GateModelSteps.modelCheck(AdmissionGateRulesModelCheckTests.class, 0, 1);
    }
}
