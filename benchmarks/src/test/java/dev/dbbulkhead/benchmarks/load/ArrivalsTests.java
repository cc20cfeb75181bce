package dev.dbbulkhead.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ArrivalsTests {

    @Test
    void steadyArrivalsAreDueOneByOneAtTheirRate() {
        Arrivals arrivals = Arrivals.steady(1000);

        assertThat(arrivals.dueBy(0)).isEqualTo(1);
        assertThat(arrivals.dueBy(Duration.ofMillis(10).toNanos())).isEqualTo(11);
        assertThat(arrivals.within(Duration.ofSeconds(1))).isEqualTo(1001);
        assertThat(arrivals.perSecond()).isEqualTo(1000);
    }

    @Test
    void burstsArriveWholeAtTheStartOfEachPeriod() {
        Arrivals arrivals = Arrivals.bursts(20, Duration.ofMillis(50));

        assertThat(arrivals.dueBy(0)).isEqualTo(20);
        assertThat(arrivals.dueBy(Duration.ofMillis(50).toNanos() - 1)).isEqualTo(20);
        assertThat(arrivals.dueBy(Duration.ofMillis(50).toNanos())).isEqualTo(40);
        assertThat(arrivals.perSecond()).isEqualTo(400);
    }

    @Test
    void aWindowHoldsEveryBurstThatStartsBeforeItsEnd() {
        Arrivals arrivals = Arrivals.bursts(20, Duration.ofMillis(50));

        assertThat(arrivals.within(Duration.ofMillis(100))).as("bursts at 0 and 50 ms").isEqualTo(40);
        assertThat(arrivals.within(Duration.ofMillis(101))).as("and at 100 ms").isEqualTo(60);
        assertThat(arrivals.dueBy(Duration.ofMillis(101).toNanos() - 1)).isEqualTo(arrivals.within(Duration.ofMillis(101)));
    }

    @Test
    void burstsNeedAPositiveSizeAndPeriod() {
        assertThatIllegalArgumentException().isThrownBy(() -> Arrivals.bursts(0, Duration.ofMillis(50)))
                .withMessageContaining("size");
        assertThatIllegalArgumentException().isThrownBy(() -> Arrivals.bursts(20, Duration.ZERO))
                .withMessageContaining("period");
    }
}
