package dev.dbbulkhead.deadline;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TimeoutHeaderValuesTests {

    @Test
    void aGrpcTimeoutIsReadInEachOfItsUnits() {
        assertThat(TimeoutHeaderValues.grpcTimeout("2H")).contains(Duration.ofHours(2));
        assertThat(TimeoutHeaderValues.grpcTimeout("3M")).contains(Duration.ofMinutes(3));
        assertThat(TimeoutHeaderValues.grpcTimeout("4S")).contains(Duration.ofSeconds(4));
        assertThat(TimeoutHeaderValues.grpcTimeout("250m")).contains(Duration.ofMillis(250));
        assertThat(TimeoutHeaderValues.grpcTimeout("99999999u")).contains(Duration.ofNanos(99_999_999_000L));
        assertThat(TimeoutHeaderValues.grpcTimeout(" 7n ")).contains(Duration.ofNanos(7));
        assertThat(TimeoutHeaderValues.grpcTimeout("0m")).as("spent").contains(Duration.ZERO);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "m", "250", "250ms", "123456789m", "-5S", "1.5S", "5s", "5 S", "５S"})
    void anythingElseIsNoGrpcTimeout(String value) {
        assertThat(TimeoutHeaderValues.grpcTimeout(value)).isEmpty();
    }

    @Test
    void plainMillisecondsAreReadUpToTheLongestStatementTimeout() {
        assertThat(TimeoutHeaderValues.milliseconds("300")).contains(Duration.ofMillis(300));
        assertThat(TimeoutHeaderValues.milliseconds(" 0 ")).as("spent").contains(Duration.ZERO);
        assertThat(TimeoutHeaderValues.milliseconds("2147483647")).contains(Duration.ofMillis(Integer.MAX_VALUE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "2147483648", "99999999999", "-1", "1e3", "300ms", "3 00"})
    void anythingElseIsNoMillisecondsBudget(String value) {
        assertThat(TimeoutHeaderValues.milliseconds(value)).isEmpty();
    }
}
