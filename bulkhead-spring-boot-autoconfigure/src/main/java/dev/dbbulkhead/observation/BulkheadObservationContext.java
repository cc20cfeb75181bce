package dev.dbbulkhead.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of a bulkhead knows: which of the two it is, the workload, and — once it ends — its
 * outcome. Conventions read it; the outcome is set just before the observation stops.
 */
public final class BulkheadObservationContext extends Observation.Context {

    private final BulkheadObservationDocumentation observation;
    private final String workload;
    private final WorkloadKeyValues keyValues;
    private volatile @Nullable String outcome;
    private volatile boolean shed;

    /** {@code keyValues} are the workload's, built once for all its observations. */
    BulkheadObservationContext(BulkheadObservationDocumentation observation, String workload,
                               WorkloadKeyValues keyValues) {
        this.observation = observation;
        this.workload = workload;
        this.keyValues = keyValues;
    }

    /** Which observation this is: the wait for an execution permit, or the execution. */
    public BulkheadObservationDocumentation observation() {
        return observation;
    }

    /** The workload's name. */
    public String workload() {
        return workload;
    }

    /**
     * How it ended — {@code admitted}, {@code timeout} or {@code interrupted} for the wait, {@code committed},
     * {@code rolled_back}, {@code failed} or {@code unknown} for the execution — or null while it runs.
     */
    public @Nullable String outcome() {
        return outcome;
    }

    void outcome(String outcome) {
        this.outcome = outcome;
    }

    /**
     * Whether the CoDel queue discipline refused this wait because the queue stood (its outcome is then
     * {@code timeout}); false for the execution. Set just before the wait stops.
     */
    public boolean shed() {
        return shed;
    }

    void shed(boolean shed) {
        this.shed = shed;
    }

    /** The default conventions' contextual name of this observation, built once per workload. */
    String defaultContextualName() {
        return observation == BulkheadObservationDocumentation.WAIT ? keyValues.waitName() : keyValues.executionName();
    }

    /** The documented low-cardinality keys: the workload, and the outcome once there is one. */
    KeyValues documentedKeyValues() {
        String ended = outcome;
        return ended == null ? keyValues.running() : keyValues.ended(ended);
    }

    /** The documented high-cardinality keys: {@code shed=true} on a wait the CoDel discipline refused, else none. */
    KeyValues documentedHighCardinalityKeyValues() {
        return shed ? KeyValues.of(BulkheadObservationDocumentation.HighCardinalityKeys.SHED.withValue("true"))
                : KeyValues.empty();
    }
}
