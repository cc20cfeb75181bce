package dev.dbbulkhead.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import org.junit.jupiter.api.Test;

class WorkloadKeyValuesTests {

    private final WorkloadKeyValues keyValues = new WorkloadKeyValues("orders");

    @Test
    void aRunningObservationIsKeyedByItsWorkload() {
        BulkheadObservationContext context = new BulkheadObservationContext(BulkheadObservationDocumentation.EXECUTION,
                "orders", keyValues);

        assertThat(context.documentedKeyValues()).containsExactly(KeyValue.of("workload", "orders"));
    }

    @Test
    void anEndedObservationIsKeyedByItsWorkloadAndOutcome() {
        BulkheadObservationContext context = new BulkheadObservationContext(BulkheadObservationDocumentation.EXECUTION,
                "orders", keyValues);
        context.outcome("committed");

        assertThat(context.documentedKeyValues())
                .containsExactly(KeyValue.of("outcome", "committed"), KeyValue.of("workload", "orders"));
    }

    @Test
    void theKeysAreBuiltOncePerWorkloadAndOutcomeNotPerObservation() {
        BulkheadObservationContext first = new BulkheadObservationContext(BulkheadObservationDocumentation.WAIT,
                "orders", keyValues);
        BulkheadObservationContext second = new BulkheadObservationContext(BulkheadObservationDocumentation.EXECUTION,
                "orders", keyValues);
        KeyValues running = first.documentedKeyValues();
        first.outcome("admitted");
        second.outcome("admitted");

        assertThat(first.documentedKeyValues()).isSameAs(second.documentedKeyValues());
        assertThat(new BulkheadObservationContext(BulkheadObservationDocumentation.WAIT, "orders", keyValues)
                .documentedKeyValues()).isSameAs(running);
    }

    @Test
    void theDefaultContextualNamesAreBuiltOncePerWorkloadNotPerObservation() {
        DefaultBulkheadExecutionObservationConvention execution = new DefaultBulkheadExecutionObservationConvention();
        DefaultBulkheadWaitObservationConvention wait = new DefaultBulkheadWaitObservationConvention();
        String executionName = execution.getContextualName(
                new BulkheadObservationContext(BulkheadObservationDocumentation.EXECUTION, "orders", keyValues));
        String waitName = wait.getContextualName(
                new BulkheadObservationContext(BulkheadObservationDocumentation.WAIT, "orders", keyValues));

        assertThat(executionName).isEqualTo("bulkhead orders");
        assertThat(waitName).isEqualTo("bulkhead orders wait");
        assertThat(execution.getContextualName(new BulkheadObservationContext(
                BulkheadObservationDocumentation.EXECUTION, "orders", keyValues))).isSameAs(executionName);
        assertThat(wait.getContextualName(new BulkheadObservationContext(
                BulkheadObservationDocumentation.WAIT, "orders", keyValues))).isSameAs(waitName);
    }
}
