package dev.dbbulkhead.benchmarks.gatecost;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FullQueueRefusalBenchmarkTests {

    @ParameterizedTest
    @ValueSource(ints = {1, 16})
    void theMeasuredCallIsRefusedAtTheFullQueueAndEveryCallMeetsTheSameState(int queued) throws Exception {
        FullQueueRefusalBenchmark benchmark = new FullQueueRefusalBenchmark();
        benchmark.queued = queued;
        benchmark.fillThePlaces();
        try {
            for (int call = 0; call < 3; call++) {
                assertThat(benchmark.refuse()).isInstanceOf(BulkheadRejectedException.class);
            }
        } finally {
            benchmark.emptyThePlaces();
        }
    }
}
