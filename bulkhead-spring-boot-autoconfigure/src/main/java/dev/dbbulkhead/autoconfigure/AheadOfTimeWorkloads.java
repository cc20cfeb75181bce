package dev.dbbulkhead.autoconfigure;

import java.util.Collection;
import java.util.List;
import org.springframework.aot.AotDetector;

/**
 * In an application processed ahead of time (run with {@code spring.aot.enabled=true}) the bean definitions were
 * fixed at build time, and with them the workloads that have a {@code BulkheadTemplate}: a workload configured
 * only at deploy time — an environment variable adding one, say — would have no gate. Start-up stops instead and
 * says so. The values of the workloads known at build time (B, Q, timeouts) are still read at start-up.
 */
final class AheadOfTimeWorkloads {

    private AheadOfTimeWorkloads() {
    }

    /** Refuses, in an AOT-processed application, workloads configured now that were not when it was processed. */
    static void requireProcessed(Collection<String> configured, Collection<String> processed) {
        if (!AotDetector.useGeneratedArtifacts()) {
            return;
        }
        List<String> added = configured.stream().filter(workload -> !processed.contains(workload)).toList();
        if (!added.isEmpty()) {
            throw BulkheadConfigurationException.workloadsAddedAfterAotProcessing(added, processed);
        }
    }
}
