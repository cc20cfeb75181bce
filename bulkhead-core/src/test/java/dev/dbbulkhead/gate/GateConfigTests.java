package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class GateConfigTests {

    @Test
    void defaultsAreTheDocumentedConstants() {
        GateConfig defaults = GateConfig.defaults();

        assertThat(defaults.maxConcurrent()).isEqualTo(GateConfig.DEFAULT_MAX_CONCURRENT);
        assertThat(defaults.maxQueued()).isEqualTo(GateConfig.DEFAULT_MAX_QUEUED);
        assertThat(defaults.queueWait()).isEqualTo(GateConfig.DEFAULT_QUEUE_WAIT);
        assertThat(defaults.captureStackTrace()).isEqualTo(GateConfig.DEFAULT_CAPTURE_STACK_TRACE);
    }

    @Test
    void maxAdmittedIsTheExactSumUpToIntegerMaxValue() {
        GateConfig config = GateConfig.builder().maxConcurrent(Integer.MAX_VALUE - 5).maxQueued(5).build();

        assertThat(config.maxAdmitted()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void overflowingSumIsRefusedWithTheArithmetic() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> GateConfig.builder().maxConcurrent(Integer.MAX_VALUE).maxQueued(Integer.MAX_VALUE).build())
                .withMessage("maxConcurrent (B) + maxQueued (Q) must be at most 2147483647, was 2147483647 + 2147483647"
                        + " = 4294967294");
    }

    @Test
    void outOfRangeValuesAreRefusedNamingTheRangeAndTheValue() {
        assertThatIllegalArgumentException().isThrownBy(() -> GateConfig.builder().maxConcurrent(0))
                .withMessage("maxConcurrent (B) must be between 1 and 2147483647, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> GateConfig.builder().maxQueued(-3))
                .withMessage("maxQueued (Q) must be between 0 and 2147483647, was -3");
        assertThatIllegalArgumentException().isThrownBy(() -> GateConfig.builder().queueWait(Duration.ofSeconds(-1)))
                .withMessage("queueWait must be zero or positive, was PT-1S");
        assertThatIllegalArgumentException().isThrownBy(() -> GateConfig.builder().queueWait(null))
                .withMessage("queueWait must be zero or positive, was null");
        assertThatIllegalArgumentException().isThrownBy(() -> GateConfig.builder().queueWait(Duration.ofDays(365L * 300)))
                .withMessageStartingWith("queueWait must be at most PT2562047H47M16.854775807S, was PT2628000H");
    }

    @Test
    void toBuilderRoundTripsAndEqualityIsByValue() {
        GateConfig config = GateConfig.builder().maxConcurrent(4).maxQueued(2).queueWait(Duration.ofMillis(30))
                .captureStackTrace(true).queueDiscipline(QueueDiscipline.CODEL)
                .queueTargetDelay(Duration.ofMillis(7)).queueInterval(Duration.ofMillis(70)).build();

        assertThat(config.toBuilder().build()).isEqualTo(config).hasSameHashCodeAs(config);
        assertThat(config.toBuilder().queueDiscipline(QueueDiscipline.FIFO).build()).isNotEqualTo(config);
        assertThat(config).hasToString("GateConfig[maxConcurrent=4, maxQueued=2, queueWait=PT0.03S,"
                + " captureStackTrace=true, queueDiscipline=CODEL, queueTargetDelay=PT0.007S,"
                + " queueInterval=PT0.07S]");
    }

    @Test
    void theQueueDisciplineDefaultsToArrivalOrderWithCoDelsTargetAndInterval() {
        GateConfig config = GateConfig.defaults();

        assertThat(config.queueDiscipline()).isEqualTo(QueueDiscipline.FIFO);
        assertThat(config.queueTargetDelay()).isEqualTo(Duration.ofMillis(5));
        assertThat(config.queueInterval()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void aQueueTargetDelayOrIntervalThatIsNotPositiveOrATargetPastTheIntervalIsRefusedNamingTheValue() {
        assertThatIllegalArgumentException().isThrownBy(() -> GateConfig.builder().queueTargetDelay(Duration.ZERO))
                .withMessage("queueTargetDelay must be positive, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> GateConfig.builder().queueInterval(Duration.ofMillis(-1)))
                .withMessage("queueInterval must be positive, was PT-0.001S");
        assertThatIllegalArgumentException().isThrownBy(() -> GateConfig.builder().queueDiscipline(null))
                .withMessage("queueDiscipline must be one of [FIFO, CODEL], was null");
        assertThatIllegalArgumentException().isThrownBy(() -> GateConfig.builder()
                        .queueTargetDelay(Duration.ofMillis(200)).queueInterval(Duration.ofMillis(100)).build())
                .withMessage("queueTargetDelay must be between 1ns and queueInterval PT0.1S, was PT0.2S");
    }
}
