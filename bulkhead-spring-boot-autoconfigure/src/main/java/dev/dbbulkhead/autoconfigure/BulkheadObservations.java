package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.GateListener;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Two observations per admitted operation, so that a trace shows the gate wait and the transaction as separate
 * spans: {@value #WAIT} from admission until the execution permit is had or given up, then {@value #EXECUTION}
 * while the execution permit is held — connection request, transaction and cleanup. The execution observation is
 * in scope while the operation runs, so spans of the JDBC and transaction work nest under it. Both carry the
 * low-cardinality keys {@code workload} and {@code outcome}: {@code admitted}, {@code timeout} or
 * {@code interrupted} for the wait, the {@link ExecutionOutcome#tagValue() outcome} of the transaction for the
 * execution. A rejection of a full gate starts neither: nothing was admitted.
 *
 * <p>The names lie outside {@code db.bulkhead.*} on purpose: a meter handler turns observations into timers of
 * their name, with tags of their own, which must not collide with the {@code db.bulkhead.*} meters.
 * {@code management.observations.enable.dbbulkhead=false} turns both off.
 */
public final class BulkheadObservations implements GateInstrumentation {

    /** The observation of the wait for an execution permit. */
    public static final String WAIT = "dbbulkhead.wait";
    /** The observation of an admitted operation holding its execution permit. */
    public static final String EXECUTION = "dbbulkhead.execution";

    /** An operation's calls all come on its thread, and a thread has at most one in flight: gates never nest. */
    private static final ThreadLocal<Observation> WAITING = new ThreadLocal<>();
    private static final ThreadLocal<Observation.Scope> EXECUTING = new ThreadLocal<>();

    private final ObservationRegistry registry;

    public BulkheadObservations(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public GateListener listener(String workload) {
        return new WorkloadObservations(workload);
    }

    private final class WorkloadObservations implements GateListener {

        private final String workload;
        private final String waitName;
        private final String executionName;

        WorkloadObservations(String workload) {
            this.workload = workload;
            this.waitName = "bulkhead " + workload + " wait";
            this.executionName = "bulkhead " + workload;
        }

        @Override
        public void onWaitStarted(String workload) {
            WAITING.set(started(WAIT, waitName));
        }

        @Override
        public void onAdmitted(String workload, long queueWaitNanos) {
            stopWait("admitted");
            EXECUTING.set(started(EXECUTION, executionName).openScope());
        }

        @Override
        public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
            stopWait(reason.tagValue());
        }

        @Override
        public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
            Observation.Scope scope = EXECUTING.get();
            if (scope != null) {
                EXECUTING.remove();
                Observation execution = scope.getCurrentObservation();
                scope.close();
                execution.lowCardinalityKeyValue("outcome", outcome.tagValue()).stop();
            }
        }

        private Observation started(String name, String contextualName) {
            return Observation.createNotStarted(name, registry).contextualName(contextualName)
                    .lowCardinalityKeyValue("workload", workload).start();
        }

        private void stopWait(String outcome) {
            Observation wait = WAITING.get();
            if (wait != null) {
                WAITING.remove();
                wait.lowCardinalityKeyValue("outcome", outcome).stop();
            }
        }
    }
}
