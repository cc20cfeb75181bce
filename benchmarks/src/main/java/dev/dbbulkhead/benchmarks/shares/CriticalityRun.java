package dev.dbbulkhead.benchmarks.shares;

import dev.dbbulkhead.gate.Criticality;
import java.util.Map;

/**
 * One run of the criticality scenario.
 *
 * @param rulesOn     whether the gate held places back for critical work (else no rules: every class alike)
 * @param classes     each criticality's calls
 * @param loadAverage the machine's 1-minute load average at the end of the run
 */
record CriticalityRun(boolean rulesOn, Map<Criticality, StreamOutcome> classes, double loadAverage) {

    StreamOutcome of(Criticality criticality) {
        return classes.get(criticality);
    }
}
