package dev.dbbulkhead.observation;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.GateInstrumentation;
import dev.dbbulkhead.gate.GateListener;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Up to two observations per admitted operation, so that a trace shows the gate wait and the transaction as
 * separate spans: {@value #WAIT} from admission until the execution permit is had or given up — only for an
 * operation that had to wait, as most of a gate that is not overloaded never do, and an empty span on each would cost
 * them time and say nothing — then {@value #EXECUTION} while the execution permit is held: connection request,
 * transaction and cleanup. The execution observation is
 * in scope while the operation runs, so spans of the JDBC and transaction work nest under it. Both carry the
 * low-cardinality keys {@code workload} and {@code outcome}: {@code admitted}, {@code timeout} or
 * {@code interrupted} for the wait, the {@link ExecutionOutcome#tagValue() outcome} of the transaction for the
 * execution. A rejection of a full gate starts neither: nothing was admitted. A wait the CoDel queue discipline
 * refused ends as {@code timeout}, as in {@code db.bulkhead.rejected}, and its span alone adds {@code shed=true}.
 *
 * <p>Each observation has a convention that names it and gives its keys ({@link BulkheadObservationDocumentation});
 * a {@link BulkheadWaitObservationConvention} or {@link BulkheadExecutionObservationConvention} bean replaces the
 * default one.
 *
 * <p>The observations are for traces; the {@code db.bulkhead.*} meters are the metrics. A meter handler would turn
 * each observation into a timer and a long-task timer measuring what {@code db.bulkhead.queue.wait} and
 * {@code db.bulkhead.execution} already measure, at several times their cost per operation; in a Spring Boot
 * application {@link BulkheadMeterObservationHandler} keeps Boot's meter handlers away from them. The names lie
 * outside {@code db.bulkhead.*} so that a meter handler of the application's own, if it records them, never collides
 * with the {@code db.bulkhead.*} meters. {@code management.observations.enable.dbbulkhead=false} turns both
 * observations off.
 *
 * <p>Nothing is done for an {@link ObservationRegistry#isNoop() ObservationRegistry without a handler}: no context is
 * built and no thread-local touched, asked on every event, so that handlers added later are seen.
 */
public final class BulkheadObservations implements GateInstrumentation {

    /** The observation of the wait for an execution permit. */
    public static final String WAIT = "dbbulkhead.wait";
    /** The observation of an admitted operation holding its execution permit. */
    public static final String EXECUTION = "dbbulkhead.execution";

    /**
     * An operation's calls all come on its thread, and a thread has at most one in flight: gates never nest. Cleared
     * with {@code set(null)}, not {@code remove()}: a removed entry is allocated anew by the thread's next operation.
     */
    private static final ThreadLocal<@Nullable Observation> WAITING = new ThreadLocal<>();
    private static final ThreadLocal<Observation.@Nullable Scope> EXECUTING = new ThreadLocal<>();

    private static final DefaultBulkheadWaitObservationConvention DEFAULT_WAIT_CONVENTION =
            new DefaultBulkheadWaitObservationConvention();
    private static final DefaultBulkheadExecutionObservationConvention DEFAULT_EXECUTION_CONVENTION =
            new DefaultBulkheadExecutionObservationConvention();

    private final ObservationRegistry registry;
    private final @Nullable BulkheadWaitObservationConvention waitConvention;
    private final @Nullable BulkheadExecutionObservationConvention executionConvention;

    /** Observations named and keyed by the given conventions; null for the default one. */
    public BulkheadObservations(ObservationRegistry registry, @Nullable BulkheadWaitObservationConvention waitConvention,
                                @Nullable BulkheadExecutionObservationConvention executionConvention) {
        this.registry = registry;
        this.waitConvention = waitConvention;
        this.executionConvention = executionConvention;
    }

    @Override
    public GateListener listener(String workload) {
        return new WorkloadObservations(workload);
    }

    private final class WorkloadObservations implements GateListener {

        private final String workload;
        private final WorkloadKeyValues keyValues;

        WorkloadObservations(String workload) {
            this.workload = workload;
            this.keyValues = new WorkloadKeyValues(workload);
        }

        @Override
        public void onWaitStarted(String workload) {
            if (registry.isNoop()) {
                return;
            }
            WAITING.set(BulkheadObservationDocumentation.WAIT.observation(waitConvention, DEFAULT_WAIT_CONVENTION,
                    () -> new BulkheadObservationContext(BulkheadObservationDocumentation.WAIT, this.workload,
                            keyValues),
                    registry).start());
        }

        @Override
        public void onAdmitted(String workload, long queueWaitNanos) {
            if (registry.isNoop()) {
                return;
            }
            stopWait("admitted");
            EXECUTING.set(BulkheadObservationDocumentation.EXECUTION.observation(executionConvention,
                    DEFAULT_EXECUTION_CONVENTION,
                    () -> new BulkheadObservationContext(BulkheadObservationDocumentation.EXECUTION,
                            this.workload, keyValues),
                    registry).start().openScope());
        }

        @Override
        public void onShed(String workload, long queueWaitNanos) {
            // Told right before the onRejected that stops the wait: mark it, for its span to say why it ended early.
            if (registry.isNoop()) {
                return;
            }
            Observation wait = WAITING.get();
            if (wait != null && wait.getContext() instanceof BulkheadObservationContext context) {
                context.shed(true);
            }
        }

        @Override
        public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
            if (registry.isNoop()) {
                return;
            }
            stopWait(reason.tagValue());
        }

        @Override
        public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
            // A registry with a handler never loses it: one that was a no-op at release was one at admission too.
            if (registry.isNoop()) {
                return;
            }
            Observation.Scope scope = EXECUTING.get();
            if (scope != null) {
                EXECUTING.set(null);
                Observation execution = scope.getCurrentObservation();
                scope.close();
                stop(execution, outcome.tagValue());
            }
        }

        private void stopWait(String outcome) {
            Observation wait = WAITING.get();
            if (wait != null) {
                WAITING.set(null);
                stop(wait, outcome);
            }
        }

        private static void stop(Observation observation, String outcome) {
            if (observation.getContext() instanceof BulkheadObservationContext context) {
                context.outcome(outcome);
            }
            observation.stop();
        }
    }
}
