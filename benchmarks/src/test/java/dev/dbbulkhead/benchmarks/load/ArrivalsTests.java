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

    @Test
    void poissonArrivalsAreTheSameForTheSameSeedAndComeAtTheirRateOnAverage() {
        Arrivals one = Arrivals.poisson(1000, 7);
        Arrivals again = Arrivals.poisson(1000, 7);
        Arrivals other = Arrivals.poisson(1000, 8);

        assertThat(one.dueBy(0)).as("the first at once").isEqualTo(1);
        long inTenSeconds = one.within(Duration.ofSeconds(10));
        assertThat(inTenSeconds).as("10,000 expected, a standard deviation of 100").isBetween(9_500L, 10_500L);
        for (long ms = 0; ms < 10_000; ms += 7) {
            long nanos = Duration.ofMillis(ms).toNanos();
            assertThat(again.dueBy(nanos)).isEqualTo(one.dueBy(nanos));
        }
        assertThat(other.within(Duration.ofSeconds(10))).as("another seed, other gaps").isNotEqualTo(inTenSeconds);
        assertThat(one.perSecond()).isEqualTo(1000);
    }

    @Test
    void poissonArrivalsDueByAMomentNeverGoBackAndAWindowHoldsThoseBeforeItsEnd() {
        Arrivals arrivals = Arrivals.poisson(50, 3);
        long before = 0;
        for (long ms = 0; ms <= 2_000; ms++) {
            long due = arrivals.dueBy(Duration.ofMillis(ms).toNanos());
            assertThat(due).isGreaterThanOrEqualTo(before);
            before = due;
        }
        Duration window = Duration.ofSeconds(2);
        assertThat(arrivals.within(window)).isEqualTo(arrivals.dueBy(window.toNanos() - 1));
        assertThat(Arrivals.poisson(50, 3).within(window)).as("asked first for the window")
                .isEqualTo(arrivals.within(window));
    }

    @Test
    void poissonArrivalsNeedAPositiveFiniteRate() {
        assertThatIllegalArgumentException().isThrownBy(() -> Arrivals.poisson(0, 1)).withMessageContaining("rate");
        assertThatIllegalArgumentException().isThrownBy(() -> Arrivals.poisson(Double.NaN, 1))
                .withMessageContaining("rate");
        assertThatIllegalArgumentException().isThrownBy(() -> Arrivals.poisson(Double.POSITIVE_INFINITY, 1))
                .withMessageContaining("rate");
    }
}
