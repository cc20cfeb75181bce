package dev.dbbulkhead.observation;

import io.micrometer.common.KeyValues;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The documented low-cardinality keys and the contextual names of one workload's observations, built once per
 * workload and outcome rather than per observation: {@link KeyValues#of} and {@link KeyValues#and} sort and
 * de-duplicate on every call, a handler asks for the keys when an observation starts and again when it stops, and a
 * contextual name concatenated per observation is a new string each time.
 */
final class WorkloadKeyValues {

    private final String executionName;
    private final String waitName;
    private final KeyValues running;
    /** One entry per outcome tag value: a handful of constants. */
    private final Map<String, KeyValues> ended = new ConcurrentHashMap<>();

    WorkloadKeyValues(String workload) {
        executionName = "bulkhead " + workload;
        waitName = executionName + " wait";
        running = KeyValues.of(BulkheadObservationDocumentation.LowCardinalityKeys.WORKLOAD.withValue(workload));
    }

    /** The default contextual name of the execution observation: {@code bulkhead <workload>}. */
    String executionName() {
        return executionName;
    }

    /** The default contextual name of the wait observation: {@code bulkhead <workload> wait}. */
    String waitName() {
        return waitName;
    }

    /** The keys of an observation still running: the workload. */
    KeyValues running() {
        return running;
    }

    /** The keys of an observation that ended with {@code outcome}: the workload and the outcome. */
    KeyValues ended(String outcome) {
        KeyValues keyValues = ended.get(outcome);
        return keyValues != null ? keyValues : ended.computeIfAbsent(outcome,
                value -> running.and(BulkheadObservationDocumentation.LowCardinalityKeys.OUTCOME.withValue(value)));
    }
}
