package dev.dbbulkhead.gate;

import static dev.dbbulkhead.gate.GateModelSteps.check;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lincheck model checking of the gate with request deadlines among its callers: operations without one, operations
 * with time to spare (whose hold times the gate samples), and operations whose deadline is already spent, under every
 * interleaving the model checker explores.
 *
 * <p>What is checked:
 * <ul>
 *   <li>a spent deadline is never admitted, and is refused for what it is — {@code INSUFFICIENT_TIME} — or because
 *       the gate is full, never for a reason of another rule;</li>
 *   <li>a deadline with time to spare is admitted as a caller without one is: B holds, and its permit is released
 *       once, however its hold time is sampled;</li>
 *   <li>a deadline bound on a thread ends with its scope: no later operation of the thread is bound by it;</li>
 *   <li>no refusal leaks a place: every permit is back at the end, and nothing is parked.</li>
 * </ul>
 * A broken rule is kept by {@link GateModelSteps#check} and reported after the run, since Lincheck takes what an
 * operation throws for its result: a rule broken alike in every interleaving would otherwise pass.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES) // only against a hang of the harness; Lincheck reports a blocked model thread itself
public class AdmissionGateDeadlineModelCheckTests {

    /** Long enough never to expire in a model run: an admitted waiter is always handed a permit eventually. */
    private static final Duration TIME_TO_SPARE = Duration.ofHours(1);
    private static final Set<RejectionReason> SPENT_DEADLINE_REFUSALS =
            EnumSet.of(RejectionReason.INSUFFICIENT_TIME, RejectionReason.ADMISSION_FULL);
    private static final int MAX_CONCURRENT = 1;

    private final AdmissionGate gate = new AdmissionGate("deadlines", GateConfig.builder()
            .maxConcurrent(MAX_CONCURRENT)
            .maxQueued(1)
            .queueWait(TIME_TO_SPARE)
            .build());
    private final AtomicInteger running = new AtomicInteger();

    /** Without a deadline: admitted (waiting if need be) or refused as full. */
    @Operation
    public void enterWithoutDeadline() {
        check(RequestDeadline.current().isEmpty(), "a deadline outlived its scope on this thread");
        runIfAdmitted();
    }

    /** With an hour to spare: admitted as a caller without a deadline is, and its hold time sampled. */
    @Operation
    public void enterWithTimeToSpare() {
        try (RequestDeadline.Scope bound = RequestDeadline.in(TIME_TO_SPARE).bind()) {
            runIfAdmitted();
        }
    }

    /** With a deadline already spent: refused, before it takes a place. */
    @Operation
    public void enterWithSpentDeadline() {
        try (RequestDeadline.Scope bound = RequestDeadline.in(Duration.ZERO).bind()) {
            Permit permit = gate.acquire();
            permit.close();
            check(false, "an operation whose deadline was spent was admitted");
        } catch (BulkheadRejectedException refused) {
            check(SPENT_DEADLINE_REFUSALS.contains(refused.reason()),
                    "a spent deadline refused as " + refused.reason());
        }
    }

    private void runIfAdmitted() {
        Permit permit;
        try {
            permit = gate.acquire();
        } catch (BulkheadRejectedException refused) {
            check(refused.reason() == RejectionReason.ADMISSION_FULL, "refused as " + refused.reason());
            return;
        }
        try {
            int runningNow = running.incrementAndGet();
            check(runningNow <= MAX_CONCURRENT, "running " + runningNow + " > B " + MAX_CONCURRENT);
            running.decrementAndGet();
        } finally {
            permit.close();
            permit.close();
        }
        check(permit.isReleased(), "permit not released after close");
    }

    @Validate
    public void everyPermitIsBack() {
        GateModelSteps.checkIdle(gate);
    }

    @Test
    @DisplayName("model checking: spent deadlines are refused for their own reason and leak nothing, deadlines with time to spare keep B and release once, under all explored interleavings")
    void modelCheck() {
        GateModelSteps.modelCheck(AdmissionGateDeadlineModelCheckTests.class, 0, 1);
    }
}
