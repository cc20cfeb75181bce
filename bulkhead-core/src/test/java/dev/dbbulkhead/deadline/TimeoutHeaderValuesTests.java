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

    @Test
    void theLongestLegalGrpcTimeoutOfEachUnitIsReadAndHeldToTheLongestBudget() {
        Duration longest = TimeoutHeaderValues.MAX_BUDGET;
        assertThat(longest).isEqualTo(Duration.ofMillis(2_147_483_647L));
        assertThat(TimeoutHeaderValues.grpcTimeout("99999999H")).contains(longest);
        assertThat(TimeoutHeaderValues.grpcTimeout("99999999M")).contains(longest);
        assertThat(TimeoutHeaderValues.grpcTimeout("99999999S")).contains(longest);
        assertThat(TimeoutHeaderValues.grpcTimeout("99999999m")).as("about 27.8 hours").contains(Duration.ofMillis(99_999_999));
        assertThat(TimeoutHeaderValues.grpcTimeout("99999999u")).contains(Duration.ofNanos(99_999_999_000L));
        assertThat(TimeoutHeaderValues.grpcTimeout("99999999n")).contains(Duration.ofNanos(99_999_999));
        assertThat(TimeoutHeaderValues.grpcTimeout("00000000H")).as("eight zeros: spent").contains(Duration.ZERO);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "m", "H", "250", "250ms", "123456789m", "999999999H", "-5S", "-1m", "1.5S", "5s",
            "5 S", "５S", "+5S", "0x10S", "soon", "5SS"})
    void anythingElseIsNoGrpcTimeout(String value) {
        assertThat(TimeoutHeaderValues.grpcTimeout(value)).isEmpty();
    }

    @Test
    void plainMillisecondsAreReadUpToTheLongestStatementTimeout() {
        assertThat(TimeoutHeaderValues.milliseconds("300")).contains(Duration.ofMillis(300));
        assertThat(TimeoutHeaderValues.milliseconds(" 0 ")).as("spent").contains(Duration.ZERO);
        assertThat(TimeoutHeaderValues.milliseconds("2147483647")).contains(Duration.ofMillis(Integer.MAX_VALUE));
        assertThat(TimeoutHeaderValues.milliseconds("000000000000300")).as("leading zeros").contains(Duration.ofMillis(300));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2147483648", "99999999999", "9223372036854775807", "9223372036854775808",
            "92233720368547758079223372036854775807"})
    void moreMillisecondsThanTheLongestBudgetAreTheLongestBudget(String value) {
        assertThat(TimeoutHeaderValues.milliseconds(value)).contains(TimeoutHeaderValues.MAX_BUDGET);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "-1", "-9223372036854775808", "1e3", "300ms", "3 00", "+300", "soon"})
    void anythingElseIsNoMillisecondsBudget(String value) {
        assertThat(TimeoutHeaderValues.milliseconds(value)).isEmpty();
    }
}
