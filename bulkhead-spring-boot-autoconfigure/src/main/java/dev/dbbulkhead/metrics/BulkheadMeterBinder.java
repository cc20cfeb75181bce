package dev.dbbulkhead.metrics;

import dev.dbbulkhead.ExecutionOutcome;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateInstrumentation;
import dev.dbbulkhead.gate.GateListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.noop.NoopMeter;
import java.util.Arrays;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;

/**
 * The {@code db.bulkhead.*} meters of every workload, each tagged {@code workload}. Counters and timers are
 * registered once per workload (and per reason or outcome), so recording costs no tag building; gauges hold their
 * gate strongly, so they never go blank while the gate lives. A workload's meters are removed when its bulkhead is
 * closed, that is when this bean is destroyed with the application context.
 */
public final class BulkheadMeterBinder implements GateInstrumentation, DisposableBean {

    /** Counter of operations admitted to their gate. */
    public static final String ADMITTED = "db.bulkhead.admitted";
    /**
     * Counter of refused operations, tagged {@code reason}: {@code full}, {@code timeout}, {@code interrupted},
     * {@code insufficient_time}, {@code criticality}, {@code fair_share}, {@code borrow_refused}.
     */
    public static final String REJECTED = "db.bulkhead.rejected";
    /** Timer from admission to the execution permit, or to giving up. */
    public static final String QUEUE_WAIT = "db.bulkhead.queue.wait";
    /** Timer of admitted operations, tagged {@code outcome}: {@code committed}, {@code rolled_back}, {@code failed}, {@code unknown}. */
    public static final String EXECUTION = "db.bulkhead.execution";
    /**
     * Timer of admitted operations' transactions, from their begin on the connection had to the end of their commit or
     * rollback, tagged {@code outcome} as {@link #EXECUTION} is.
     */
    public static final String TRANSACTION = "db.bulkhead.transaction";
    /**
     * Counter of transactions failed by a lock wait the database ended, tagged {@code kind}: {@code timeout}
     * (SQLState 55P03, past {@code lock_timeout}), {@code deadlock} (40P01).
     */
    public static final String LOCK_FAILURES = "db.bulkhead.lock.failures";
    /** Gauge of execution permits in use. */
    public static final String ACTIVE = "db.bulkhead.active";
    /** Gauge of operations admitted and not yet executing. */
    public static final String WAITING = "db.bulkhead.waiting";
    /** Gauge of the limits in force, tagged {@code kind}: {@code concurrent} (B), {@code queued} (Q). */
    public static final String LIMIT = "db.bulkhead.limit";
    /** Counter of waiters the CoDel queue discipline refused before their queue wait ran out. */
    public static final String QUEUE_SHED = "db.bulkhead.queue.shed";
    /** Gauge, 1 while the queue stands and 0 otherwise, tagged {@code discipline}. */
    public static final String QUEUE_STANDING = "db.bulkhead.queue.standing";
    /** Gauge of the operations running on places borrowed from the other workloads of the DataSource; borrowers only. */
    public static final String BORROWED = "db.bulkhead.borrowed";

    private final MeterRegistry registry;
    /** Every meter this binder registered, to remove them when the context closes. */
    private final Queue<Meter> meters = new ConcurrentLinkedQueue<>();

    public BulkheadMeterBinder(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * The workload's meters as a listener; {@link GateListener#NONE} when a meter filter denies every one of them, so
     * that a gate nobody else listens to takes no time stamps for meters that would record nothing.
     */
    @Override
    public GateListener listener(String workload) {
        WorkloadMeters workloadMeters = new WorkloadMeters(workload);
        return workloadMeters.recordsNothing() ? GateListener.NONE : workloadMeters;
    }

    @Override
    public void gateBuilt(AdmissionGate gate) {
        gauge(gate, ACTIVE, "Operations holding an execution permit, from requesting the connection to its cleanup",
                Tags.empty(), AdmissionGate::active);
        gauge(gate, WAITING, "Operations admitted and still waiting for an execution permit",
                Tags.empty(), AdmissionGate::waiting);
        String limitDescription = "The limits in force: kind=concurrent is B (execution permits), kind=queued is Q"
                + " (admissions beyond B); they change when the bulkhead is resized";
        gauge(gate, LIMIT, limitDescription, Tags.of("kind", "concurrent"), g -> g.config().maxConcurrent());
        gauge(gate, LIMIT, limitDescription, Tags.of("kind", "queued"), g -> g.config().maxQueued());
        // A resize changes B and Q only: the discipline a gate is built with stays, and so does the tag.
        gauge(gate, QUEUE_STANDING, "1 while the CoDel queue discipline judges the queue standing (newest first,"
                        + " shedding those past the target delay), else 0; tag discipline = the discipline in force",
                Tags.of("discipline", gate.config().queueDiscipline().name().toLowerCase(Locale.ROOT)),
                g -> g.queueStanding() ? 1 : 0);
        if (gate.config().lending().borrow() > 0) {
            // Only a borrower has borrowed places to show: a workload that does not borrow gets no series.
            gauge(gate, BORROWED, "Operations running beyond max-concurrent on places borrowed from the other"
                    + " workloads of the DataSource (counted in db.bulkhead.active too)", Tags.empty(),
                    AdmissionGate::borrowed);
        }
    }

    /** Removes the meters of every workload: their bulkheads close with the application context. */
    @Override
    public void destroy() {
        meters.forEach(registry::remove);
        meters.clear();
    }

    private void gauge(AdmissionGate gate, String name, String description, Tags tags,
                       ToDoubleFunction<AdmissionGate> value) {
        bound(Gauge.builder(name, gate, value).strongReference(true).description(description)
                .tag("workload", gate.workload()).tags(tags).register(registry));
    }

    /**
     * One meter per value of an enum, tagged with the workload and registered, indexed by the value's ordinal, so
     * recording looks nothing up.
     */
    private <E extends Enum<E>, M extends Meter> M[] onePerValue(String workload, E[] values,
            Function<E, Meter.MeterProvider<M>> meters, IntFunction<M[]> array) {
        return Arrays.stream(values).map(value -> bound(meters.apply(value).withTag("workload", workload)))
                .toArray(array);
    }

    private <M extends Meter> M bound(M meter) {
        meters.add(meter);
        return meter;
    }

    /** One workload's counters and timers, resolved up front. */
    private final class WorkloadMeters implements GateListener {

        private final Counter admitted;
        private final Counter[] rejectedByReason;
        private final Counter shed;
        private final Timer queueWait;
        private final Timer[] executionByOutcome;
        private final Timer[] transactionByOutcome;
        private final Counter[] lockFailuresByKind;

        WorkloadMeters(String workload) {
            admitted = bound(Counter.builder(ADMITTED)
                    .description("Operations that got an execution permit and ran")
                    .tag("workload", workload).register(registry));
            String rejectedDescription = "Operations refused before the pool: full = all B + Q places taken, timeout"
                    + " = no execution permit within the queue wait, interrupted = interrupted on entry or while waiting,"
                    + " insufficient_time = less of its deadline left than the workload's operations usually take,"
                    + " criticality = only places held back for more critical work left, or its place in the queue"
                    + " taken by more critical work, fair_share = its place in a full queue taken for a key that used"
                    + " less, borrow_refused = its own places taken and no place of its pool free to borrow";
            rejectedByReason = onePerValue(workload, RejectionReason.values(), reason -> Counter.builder(REJECTED)
                    .description(rejectedDescription).tag("reason", reason.tagValue()).withRegistry(registry),
                    Counter[]::new);
            shed = bound(Counter.builder(QUEUE_SHED)
                    .description("Waiters refused by the CoDel queue discipline because the queue stood; each is"
                            + " also counted in db.bulkhead.rejected with reason=timeout")
                    .tag("workload", workload).register(registry));
            queueWait = bound(Timer.builder(QUEUE_WAIT)
                    .description("Wait of an admitted operation for its execution permit, until it got one or gave up")
                    .tag("workload", workload).register(registry));
            String executionDescription = "Time an operation held its execution permit, from requesting the"
                    + " connection to its cleanup, by how its transaction ended";
            executionByOutcome = onePerValue(workload, ExecutionOutcome.values(), outcome -> Timer.builder(EXECUTION)
                    .description(executionDescription).tag("outcome", outcome.tagValue()).withRegistry(registry),
                    Timer[]::new);
            String transactionDescription = "Time an operation's transaction took on its connection, from its begin"
                    + " to the end of its commit or rollback: its SQL, lock waits and commit, by how it ended";
            transactionByOutcome = onePerValue(workload, ExecutionOutcome.values(),
                    outcome -> Timer.builder(TRANSACTION).description(transactionDescription)
                            .tag("outcome", outcome.tagValue()).withRegistry(registry),
                    Timer[]::new);
            String lockFailuresDescription = "Transactions failed by a lock wait the database ended: timeout ="
                    + " past lock_timeout or NOWAIT (SQLState 55P03), deadlock = a deadlock broken (40P01)";
            lockFailuresByKind = onePerValue(workload, LockFailure.values(), kind -> Counter.builder(LOCK_FAILURES)
                    .description(lockFailuresDescription).tag("kind", kind.tagValue()).withRegistry(registry),
                    Counter[]::new);
        }

        /** Whether every meter of the workload is a no-op: a meter filter denied them all. */
        boolean recordsNothing() {
            return Stream.of(Stream.of(admitted, shed, queueWait), Arrays.stream(rejectedByReason),
                            Arrays.stream(executionByOutcome), Arrays.stream(transactionByOutcome),
                            Arrays.stream(lockFailuresByKind))
                    .flatMap(Function.identity()).allMatch(NoopMeter.class::isInstance);
        }

        @Override
        public void onAdmitted(String workload, long queueWaitNanos) {
            admitted.increment();
            queueWait.record(queueWaitNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
            rejectedByReason[reason.ordinal()].increment();
            if (queueWaitNanos != GateListener.NEVER_ADMITTED) {
                // A full gate, or an interrupt seen on entry, refuses before anything waits: only those that waited
                // have a queue wait.
                queueWait.record(queueWaitNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void onShed(String workload, long queueWaitNanos) {
            // Its wait is timed by the onRejected that follows.
            shed.increment();
        }

        @Override
        public void onTransactionEnded(String workload, ExecutionOutcome outcome, long transactionNanos,
                                       @Nullable Throwable failure) {
            transactionByOutcome[outcome.ordinal()].record(transactionNanos, TimeUnit.NANOSECONDS);
            LockFailure lockFailure = failure == null ? null : LockFailure.of(failure);
            if (lockFailure != null) {
                lockFailuresByKind[lockFailure.ordinal()].increment();
            }
        }

        @Override
        public void onReleased(String workload, ExecutionOutcome outcome, long heldNanos) {
            executionByOutcome[outcome.ordinal()].record(heldNanos, TimeUnit.NANOSECONDS);
        }
    }
}
