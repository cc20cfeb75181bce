package dev.dbbulkhead;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The tag values are part of the public surface: dashboards and alerts match on them. */
class MetricTagValuesTests {

    @Test
    void rejectionReasonsAndOutcomesHaveTheTagValuesOfTheSpecification() {
        assertThat(Arrays.stream(RejectionReason.values()).map(RejectionReason::tagValue))
                .containsExactly("full", "timeout", "interrupted", "insufficient_time", "criticality",
                        "fair_share", "pushed_out", "borrow_refused", "shutting_down");
        assertThat(Arrays.stream(ExecutionOutcome.values()).map(ExecutionOutcome::tagValue))
                .containsExactly("committed", "rolled_back", "failed", "unknown");
    }
}
