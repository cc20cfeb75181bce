package dev.dbbulkhead.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryBudgetConfigTests {

    @Test
    void defaultsAreTheDocumentedConstants() {
        RetryBudgetConfig defaults = RetryBudgetConfig.defaults();

        assertThat(defaults.percentCanRetry()).isEqualTo(0.1).isEqualTo(RetryBudgetConfig.DEFAULT_PERCENT_CAN_RETRY);
        assertThat(defaults.minRetriesPerSecond()).isEqualTo(10)
                .isEqualTo(RetryBudgetConfig.DEFAULT_MIN_RETRIES_PER_SECOND);
        assertThat(defaults.window()).isEqualTo(Duration.ofSeconds(10)).isEqualTo(RetryBudgetConfig.DEFAULT_WINDOW);
        assertThat(defaults.backoffBase()).isEqualTo(Duration.ofMillis(10));
        assertThat(defaults.backoffCap()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.minRetriesPerWindow()).isEqualTo(100);
    }

    @Test
    void theFloorOverTheWindowIsRoundedDown() {
        RetryBudgetConfig config = RetryBudgetConfig.builder().minRetriesPerSecond(3).window(Duration.ofMillis(1_500))
                .build();

        assertThat(config.minRetriesPerWindow()).isEqualTo(4);
    }

    @Test
    void theEndsOfEveryRangeAreAccepted() {
        RetryBudgetConfig config = RetryBudgetConfig.builder().percentCanRetry(1.0).minRetriesPerSecond(0)
                .window(Duration.ofHours(1)).backoffBase(Duration.ofMillis(1)).backoffCap(Duration.ofHours(1)).build();

        assertThat(config.toBuilder().percentCanRetry(0.0).window(Duration.ofSeconds(1)).build().window())
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(config.minRetriesPerWindow()).isZero();
    }

    @Test
    void aShareOutsideZeroToOneIsRefusedNamingTheSettingTheValueAndTheRange() {
        assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().percentCanRetry(1.5))
                .withMessage("percentCanRetry must be between 0.0 and 1.0, was 1.5");
        assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().percentCanRetry(-0.1))
                .withMessage("percentCanRetry must be between 0.0 and 1.0, was -0.1");
        assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().percentCanRetry(Double.NaN))
                .withMessage("percentCanRetry must be between 0.0 and 1.0, was NaN");
    }

    @Test
    void aNegativeFloorIsRefusedNamingTheSettingTheValueAndTheRange() {
        assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().minRetriesPerSecond(-1))
                .withMessage("minRetriesPerSecond must be between 0 and 2147483647, was -1");
    }

    @Test
    void aWindowOutsideOneSecondToOneHourOrNotInWholeMillisecondsIsRefusedNamingTheValueAndTheRange() {
        assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().window(Duration.ofMillis(999)))
                .withMessage("window must be between PT1S and PT1H, was PT0.999S");
        assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().window(Duration.ofMinutes(61)))
                .withMessage("window must be between PT1S and PT1H, was PT1H1M");
        assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().window(null))
                .withMessage("window must be between PT1S and PT1H, was null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RetryBudgetConfig.builder().window(Duration.ofSeconds(2).plusNanos(500)))
                .withMessage("window must be between PT1S and PT1H in whole milliseconds, was PT2.0000005S");
    }

    @Test
    void aBackoffOutsideItsRangeOrABasePastTheCapIsRefusedNamingTheValueAndTheRange() {
        assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().backoffBase(Duration.ZERO))
                .withMessage("backoffBase must be between PT0.001S and PT1H, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder().backoffCap(Duration.ofHours(2)))
                .withMessage("backoffCap must be between PT0.001S and PT1H, was PT2H");
        assertThatIllegalArgumentException().isThrownBy(() -> RetryBudgetConfig.builder()
                        .backoffBase(Duration.ofSeconds(2)).backoffCap(Duration.ofSeconds(1)).build())
                .withMessage("backoffBase must be between PT0.001S and backoffCap PT1S, was PT2S");
    }

    @Test
    void toBuilderRoundTripsAndEqualityIsByValue() {
        RetryBudgetConfig config = RetryBudgetConfig.builder().percentCanRetry(0.5).minRetriesPerSecond(2)
                .window(Duration.ofSeconds(30)).backoffBase(Duration.ofMillis(20)).backoffCap(Duration.ofMillis(500))
                .build();

        assertThat(config.toBuilder().build()).isEqualTo(config).hasSameHashCodeAs(config);
        assertThat(config.toBuilder().percentCanRetry(0.25).build()).isNotEqualTo(config);
        assertThat(config).hasToString("RetryBudgetConfig[percentCanRetry=0.5, minRetriesPerSecond=2, window=PT30S,"
                + " backoffBase=PT0.02S, backoffCap=PT0.5S]");
    }
}
