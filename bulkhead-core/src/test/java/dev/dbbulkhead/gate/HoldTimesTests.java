package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HoldTimesTests {

    private final AtomicInteger next = new AtomicInteger();
    /** Slots in turn, 0 to 31, so that a test knows which release publishes. */
    private final HoldTimes holdTimes = new HoldTimes(() -> next.getAndIncrement() % HoldTimes.SAMPLES);

    @Test
    void nothingIsKnownUntilHalfTheSampleIsFilledAndARecordLandsInTheFirstSlot() {
        for (int i = 0; i < HoldTimes.SAMPLES; i++) {
            holdTimes.record(1_000);
        }
        assertThat(holdTimes.medianNanos()).as("slot 0 was written first, with one hold time known").isZero();

        holdTimes.record(1_000);

        assertThat(holdTimes.medianNanos()).isEqualTo(1_000);
    }

    @Test
    void theMedianOfTheSampleIsPublishedAndOldHoldTimesAreReplaced() {
        // Slots 0..31 get 1..32 µs, then slot 0 is written again with 33 µs: the sample is 2..33 µs.
        for (int i = 1; i <= HoldTimes.SAMPLES + 1; i++) {
            holdTimes.record(i * 1_000L);
        }

        assertThat(holdTimes.medianNanos()).isEqualTo(18_000);
    }

    @Test
    void aHoldTimeOfZeroCountsAsOneNanosecondNotAsAnEmptySlot() {
        for (int i = 0; i <= HoldTimes.SAMPLES; i++) {
            holdTimes.record(0);
        }

        assertThat(holdTimes.medianNanos()).isEqualTo(1);
    }
}
