package dev.dbbulkhead;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WrittenDurationsTests {

    @ParameterizedTest(name = "{0} is written {1}")
    @CsvSource(textBlock = """
            PT0.05S,    50ms
            PT0S,       0s
            PT1S,       1s
            PT1.5S,     1500ms
            PT-0.005S,  -5ms
            PT2M,       2m
            PT90S,      90s
            PT24H,      1d
            PT48H,      2d
            PT0.0015S,  1500us
            PT0.000000001S, 1ns
            """)
    void aDurationIsWrittenInTheLargestUnitThatHoldsItWhole(String iso, String written) {
        assertThat(WrittenDurations.of(Duration.parse(iso))).isEqualTo(written);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            must be longer than queue-wait = PT0.1S (x) | must be longer than queue-wait = 100ms (x)
            between PT1S and PT1H, was PT0.5S          | between 1s and 1h, was 500ms
            OPTIONS and EXCEPT and PT alone stay       | OPTIONS and EXCEPT and PT alone stay
            """)
    void everyIsoDurationInAMessageIsWrittenAsAConfigurationWritesIt(String message, String written) {
        assertThat(WrittenDurations.in(message)).isEqualTo(written);
    }
}
