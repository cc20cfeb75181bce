package dev.dbbulkhead.actuate.endpoint;

import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.GateInstrumentation;
import dev.dbbulkhead.gate.GateListener;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Admitted and rejected totals of every workload since start-up, for the {@code dbbulkheads} endpoint; kept apart
 * from the meters so that the endpoint also works without a meter registry.
 */
public final class WorkloadTotals implements GateInstrumentation {

    private final Map<String, Counts> countsByWorkload = new ConcurrentHashMap<>();

    @Override
    public GateListener listener(String workload) {
        Counts counts = new Counts();
        countsByWorkload.put(workload, counts);
        return counts;
    }

    /** Operations of {@code workload} that got an execution permit; 0 for a workload not counted. */
    public long admitted(String workload) {
        Counts counts = countsByWorkload.get(workload);
        return counts == null ? 0 : counts.admitted.sum();
    }

    /** Rejections of {@code workload} by reason tag value ({@code full}, {@code timeout}, {@code interrupted}). */
    public Map<String, Long> rejected(String workload) {
        Counts counts = countsByWorkload.get(workload);
        Map<String, Long> byReason = new LinkedHashMap<>();
        for (RejectionReason reason : RejectionReason.values()) {
            byReason.put(reason.tagValue(), counts == null ? 0 : counts.rejected[reason.ordinal()].sum());
        }
        return byReason;
    }

    private static final class Counts implements GateListener {

        private final LongAdder admitted = new LongAdder();
        private final LongAdder[] rejected = Arrays.stream(RejectionReason.values())
                .map(reason -> new LongAdder()).toArray(LongAdder[]::new);

        @Override
        public void onAdmitted(String workload, long queueWaitNanos) {
            admitted.increment();
        }

        @Override
        public void onRejected(String workload, RejectionReason reason, long queueWaitNanos) {
            rejected[reason.ordinal()].increment();
        }
    }
}
