package dev.dbbulkhead.saturation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SamplerSettingsTests {

    @Test
    void theDefaultsSampleEverySecondAndGiveASampleUpAfterHalfASecond() {
        SamplerSettings defaults = SamplerSettings.defaults();

        assertThat(defaults.interval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.queryTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(defaults.serverCpus()).isZero();
        assertThat(defaults.freshFor()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void theExtremesOfEachRangeAreAccepted() {
        assertThat(new SamplerSettings(Duration.ofMillis(100), Duration.ofNanos(1), 1).interval())
                .isEqualTo(Duration.ofMillis(100));
        assertThat(new SamplerSettings(Duration.ofHours(1), Duration.ofHours(1), 4_096).serverCpus()).isEqualTo(4_096);
    }

    @Test
    void aValueOutOfItsRangeIsRefusedWithTheRangeAndTheValue() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new SamplerSettings(Duration.ofMillis(99), Duration.ofMillis(50), 0))
                .withMessage("sampling interval must be between 100ms and 1h, was PT0.099S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new SamplerSettings(Duration.ofHours(1).plusNanos(1), Duration.ofMillis(50), 0))
                .withMessageContaining("between 100ms and 1h");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new SamplerSettings(Duration.ofSeconds(1), Duration.ZERO, 0))
                .withMessage("sampling query timeout must be above 0s and at most the interval (PT1S), was PT0S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new SamplerSettings(Duration.ofSeconds(1), Duration.ofMillis(1_001), 0))
                .withMessageContaining("at most the interval");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new SamplerSettings(Duration.ofSeconds(1), Duration.ofMillis(500), -1))
                .withMessage("server cpus must be 0 (not known) or between 1 and 4096, was -1");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new SamplerSettings(Duration.ofSeconds(1), Duration.ofMillis(500), 4_097))
                .withMessageContaining("was 4097");
    }

    @Test
    void postgresWaitEventTypesFallIntoTheirClassesAndNoWaitIsCpu() {
        assertThat(WaitClass.of(null)).isEqualTo(WaitClass.CPU);
        assertThat(WaitClass.of("")).isEqualTo(WaitClass.CPU);
        assertThat(WaitClass.of("Lock")).isEqualTo(WaitClass.LOCK);
        assertThat(WaitClass.of("LWLock")).isEqualTo(WaitClass.LWLOCK);
        assertThat(WaitClass.of("IO")).isEqualTo(WaitClass.IO);
        assertThat(WaitClass.of("IPC")).isEqualTo(WaitClass.IPC);
        assertThat(WaitClass.of("Client")).isEqualTo(WaitClass.CLIENT);
        assertThat(WaitClass.of("Timeout")).isEqualTo(WaitClass.OTHER);
        assertThat(WaitClass.of("BufferPin")).isEqualTo(WaitClass.OTHER);
        assertThat(WaitClass.of("lock")).as("the server's spelling only").isEqualTo(WaitClass.OTHER);
    }
}
