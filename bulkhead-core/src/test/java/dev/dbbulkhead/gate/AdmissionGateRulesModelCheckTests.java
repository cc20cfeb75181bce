package dev.dbbulkhead.gate;

import static dev.dbbulkhead.gate.GateModelSteps.check;
import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.Objects;
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
 * Lincheck model checking of a gate with admission rules — half its places held back for critical work, fair shares
 * between two keys — under every interleaving the model checker explores, with critical, default and sheddable
 * operations of either key, and operations without a key (one flow of the rules' keyless key).
 *
 * <p>What is checked:
 * <ul>
 *   <li>B and B + Q hold, and each permit is released once;</li>
 *   <li>reserved places are never taken by non-critical work: at no moment are more non-critical operations inside
 *       than the places left unreserved (a ghost counted between admission and release, so never above the real
 *       number);</li>
 *   <li>reasons stay apart: a critical operation is never refused for criticality, a key — operations without one
 *       being one flow — is refused for its share only while another operation of its own may be inside (one
 *       whose span, from before it asked to after it ended, overlaps the refused one's), and nothing times out;</li>
 *   <li>no refusal path leaks a place: every permit is back at the end, nothing is parked, and the key table is empty
 *       and agrees with its running sums — at the end and at any moment an observer looks.</li>
 * </ul>
 */
@Param(name = "key", gen = IntGen.class, conf = "0:1")
@Timeout(value = 15, unit = TimeUnit.MINUTES) // only against a hang of the harness; Lincheck reports a blocked model thread itself
public class AdmissionGateRulesModelCheckTests {

    /** Long enough never to expire in a model run: an admitted waiter is always handed a permit eventually. */
    private static final Duration QUEUE_WAIT = Duration.ofHours(1);
    private static final int MAX_CONCURRENT = 1;
    private static final int MAX_QUEUED = 1;
    private static final AdmissionRules RULES = AdmissionRules.builder().criticalReserve(0.5).fairShares(true)
            .keySlots(16).build();
    /** What non-critical work may fill: B + Q less the half held back. */
    private static final int NON_CRITICAL_CEILING = RULES.admittedCeiling(Criticality.DEFAULT, MAX_CONCURRENT + MAX_QUEUED);
    private static final String[] KEYS = {"tenant-0", "tenant-1"};
    /** The index the operations without a key are counted under: one flow, as the gate counts them. */
    private static final int KEYLESS = KEYS.length;

    private final AdmissionGate gate = new AdmissionGate("rules", GateConfig.builder().maxConcurrent(MAX_CONCURRENT)
            .maxQueued(MAX_QUEUED).queueWait(QUEUE_WAIT).admissionRules(RULES).build());
    private final KeyTable table = Objects.requireNonNull(gate.keyTable());
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger nonCriticalInside = new AtomicInteger();
    /** Per key, operations that began asking and that have ended (released or refused): ever growing. */
    private final AtomicIntegerArray enteredByKey = new AtomicIntegerArray(KEYS.length + 1);
    private final AtomicIntegerArray endedByKey = new AtomicIntegerArray(KEYS.length + 1);

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

    /** The figures a gauge reads, and the key table's sums, at any moment. */
    @Operation
    public void observe() {
        int active = gate.active();
        int waiting = gate.waiting();
        check(active >= 0 && active <= MAX_CONCURRENT, "active() = " + active);
        check(waiting >= 0 && waiting <= MAX_CONCURRENT + MAX_QUEUED, "waiting() = " + waiting);
        check(table.consistent(), "key table sums disagree with its slots");
        check(table.countedSlots() <= KEYS.length + 1, "more keys counted than there are, the keyless flow included");
    }

    private void enter(Criticality criticality, int key) {
        int endedBefore = endedByKey.get(key);
        enteredByKey.incrementAndGet(key);
        try {
            OperationClass as = key == KEYLESS ? OperationClass.of(criticality) : OperationClass.of(criticality, KEYS[key]);
            Permit permit;
            try (OperationClass.Scope bound = as.bind()) {
                permit = gate.acquire();
            } catch (BulkheadRejectedException refused) {
                checkRefusal(refused.reason(), criticality, key, endedBefore);
                return;
            }
            runAndRelease(permit, criticality != Criticality.CRITICAL);
        } finally {
            endedByKey.incrementAndGet(key);
        }
    }

    /**
     * An operation of the key inside when this one was refused began before this check and had not ended before this
     * one began: among those begun so far (this one aside), more than had ended by then.
     */
    private void checkRefusal(RejectionReason reason, Criticality criticality, int key, int endedBefore) {
        switch (reason) {
            case ADMISSION_FULL -> { }
            case SHED_BY_CRITICALITY -> check(criticality != Criticality.CRITICAL, "critical work shed for criticality");
            case OVER_FAIR_SHARE -> check(enteredByKey.get(key) - 1 - endedBefore >= 1,
                    "refused for its share with nothing else of its key inside (key " + key + ")");
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
    public void everyPlaceIsBackAndTheKeyTableIsEmpty() {
        GateModelSteps.checkIdle(gate);
        check(table.insideTotal() == 0, "key table still counts " + table.insideTotal() + " operations");
        check(table.consistent(), "key table sums disagree with its slots");
    }

    @Test
    @DisplayName("model checking: criticality reserves and fair shares keep B and B+Q, never give a reserved place to non-critical work, keep their reasons apart and leak no place, under all explored interleavings")
    void modelCheck() {
        assertThat(java.util.Set.of(table.slotOf(KEYS[0]), table.slotOf(KEYS[1]), table.slotOf(RULES.keylessKey())))
                .as("the model's keys, and the keyless flow, have slots of their own").hasSize(3);
        GateModelSteps.modelCheck(AdmissionGateRulesModelCheckTests.class, 0, 1);
    }
}
