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
 * Lincheck model checking of a gate with a cap on what one key runs ({@link AdmissionRules#maxRunningPerKey()}), over
 * fair shares between two keys and operations without a key (one flow of the rules' keyless key): an operation of a key
 * running its cap waits with places free — whether it was admitted to run at once and gave its slot back, or queued —
 * and is served once an operation of its key ends.
 *
 * <p>What is checked, under every interleaving the model checker explores:
 * <ul>
 *   <li>B and B + Q hold, and each permit is released once;</li>
 *   <li>no key runs more than its cap at any moment (a ghost count per key between admission and release, never above
 *       the real one);</li>
 *   <li>a waiter held back by the cap is never stranded: with a queue wait longer than any run, nothing times out and
 *       every operation ends (a waiter left parked would hang the model, which Lincheck reports);</li>
 *   <li>no path leaks a place or a flow: every permit is back at the end, nothing waits, and the flows the order
 *       knows never exceed the keys there are.</li>
 * </ul>
 */
@Param(name = "key", gen = IntGen.class, conf = "0:1")
@Timeout(value = 15, unit = TimeUnit.MINUTES) // only against a hang of the harness; Lincheck reports a blocked model thread itself
public class AdmissionGateRunningCapModelCheckTests {

    /** Long enough never to expire in a model run: an admitted waiter is always handed a permit eventually. */
    private static final Duration QUEUE_WAIT = Duration.ofHours(1);
    private static final int MAX_CONCURRENT = 2;
    private static final int MAX_QUEUED = 2;
    private static final int CAP = 1;
    private static final String[] KEYS = {"tenant-0", "tenant-1"};
    /** The index the operations without a key are counted under: one flow, as the gate counts them. */
    private static final int KEYLESS = KEYS.length;

    private final AdmissionGate gate = new AdmissionGate("capped", GateConfig.builder().maxConcurrent(MAX_CONCURRENT)
            .maxQueued(MAX_QUEUED).queueWait(QUEUE_WAIT).admissionRules(AdmissionRules.builder().fairShares(true)
                    .maxRunningPerKey(CAP).keySlots(16).build()).build());
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicIntegerArray runningByKey = new AtomicIntegerArray(KEYS.length + 1);

    @Operation
    public void enter(@Param(name = "key") int key) {
        enterAs(key);
    }

    @Operation
    public void enterWithoutKey() {
        enterAs(KEYLESS);
    }

    /** The figures a gauge reads, and the flows the order knows, at any moment. */
    @Operation
    public void observe() {
        int active = gate.active();
        check(active >= 0 && active <= MAX_CONCURRENT, "active() = " + active);
        int flows = gate.flowsKnown();
        check(flows >= 0 && flows <= KEYS.length + 1, "more flows known than there are, the keyless one included");
    }

    private void enterAs(int key) {
        OperationClass as = key == KEYLESS ? OperationClass.of(Criticality.DEFAULT)
                : OperationClass.of(Criticality.DEFAULT, KEYS[key]);
        Permit permit;
        try (OperationClass.Scope bound = as.bind()) {
            permit = gate.acquire();
        } catch (BulkheadRejectedException refused) {
            RejectionReason reason = refused.reason();
            // Every place taken, or its place given to a key less far over its share; never a wait run out.
            check(reason == RejectionReason.ADMISSION_FULL || reason == RejectionReason.OVER_FAIR_SHARE,
                    "refused as " + reason);
            return;
        }
        GateModelSteps.runThenCloseTwice(permit, () -> {
            int runningNow = running.incrementAndGet();
            check(runningNow <= MAX_CONCURRENT, "running " + runningNow + " > B " + MAX_CONCURRENT);
            int ofKey = runningByKey.incrementAndGet(key);
            check(ofKey <= CAP, "key " + key + " runs " + ofKey + " > its cap " + CAP);
            runningByKey.decrementAndGet(key);
            running.decrementAndGet();
        });
    }

    @Validate
    public void everyPlaceIsBack() {
        GateModelSteps.checkIdle(gate);
        check(gate.flowsKnown() <= KEYS.length + 1, "flows left behind: " + gate.flowsKnown());
    }

    @Test
    @DisplayName("model checking: a cap per key keeps B, B+Q and the cap, strands no waiter it holds back and leaks no place, under all explored interleavings")
    void modelCheck() {
        assertThat(CAP).as("a cap below B, so that the cap holds a key back with places free").isLessThan(MAX_CONCURRENT);
        GateModelSteps.modelCheck(AdmissionGateRunningCapModelCheckTests.class, 0, 1);
    }
}
