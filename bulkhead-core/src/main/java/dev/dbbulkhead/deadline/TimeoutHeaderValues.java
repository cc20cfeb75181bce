package dev.dbbulkhead.deadline;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Reads the budget a caller sends in a header. A value that is not one of the form's is no budget
 * ({@link Optional#empty()}), never an error: a header comes from the client, and a malformed one must not fail the
 * request; the application's own budget then applies. A value of the form that asks for more than {@link #MAX_BUDGET}
 * reads as {@link #MAX_BUDGET}: the form allows budgets (99999999 hours, a count of milliseconds of any length) that
 * no deadline can count to, and a caller that asks for that much is served as one that asks for the longest.
 */
public final class TimeoutHeaderValues {

    /**
     * The longest budget a header gives: 2147483647 ms, about 24.8 days, PostgreSQL's longest statement timeout. Longer
     * values of the form read as this.
     */
    public static final Duration MAX_BUDGET = Duration.ofMillis(Integer.MAX_VALUE);

    /** gRPC's limit on the digits of a {@code grpc-timeout}: at most 8. */
    private static final int GRPC_MAX_DIGITS = 8;
    /** Digits beyond these make a count of milliseconds longer than {@link #MAX_BUDGET} whatever they are. */
    private static final int MAX_BUDGET_DIGITS = 10;

    private TimeoutHeaderValues() {
    }

    /**
     * A {@code grpc-timeout} value: 1 to 8 digits and a unit, {@code H} hours, {@code M} minutes, {@code S} seconds,
     * {@code m} milliseconds, {@code u} microseconds, {@code n} nanoseconds (gRPC over HTTP/2), e.g. {@code 250m}.
     * Zero is a budget already spent; more than {@link #MAX_BUDGET} reads as {@link #MAX_BUDGET}.
     */
    public static Optional<Duration> grpcTimeout(String value) {
        String trimmed = value.trim();
        int digits = trimmed.length() - 1;
        if (digits < 1 || digits > GRPC_MAX_DIGITS || !allDigits(trimmed, digits)) {
            return Optional.empty();
        }
        long amount = Long.parseLong(trimmed, 0, digits, 10);
        ChronoUnit unit = switch (trimmed.charAt(digits)) {
            case 'H' -> ChronoUnit.HOURS;
            case 'M' -> ChronoUnit.MINUTES;
            case 'S' -> ChronoUnit.SECONDS;
            case 'm' -> ChronoUnit.MILLIS;
            case 'u' -> ChronoUnit.MICROS;
            case 'n' -> ChronoUnit.NANOS;
            default -> null;
        };
        // Eight digits of hours is about 11,400 years: a Duration holds it, a deadline in nanoseconds does not.
        return unit == null ? Optional.empty() : Optional.of(atMostMaxBudget(Duration.of(amount, unit)));
    }

    /**
     * A plain count of milliseconds, as Envoy's {@code x-envoy-expected-rq-timeout-ms} sends it: one or more digits.
     * Zero is a budget already spent; more than {@link #MAX_BUDGET} (2147483647), however many digits, reads as
     * {@link #MAX_BUDGET}.
     */
    public static Optional<Duration> milliseconds(String value) {
        String trimmed = value.trim();
        if (trimmed.isEmpty() || !allDigits(trimmed, trimmed.length())) {
            return Optional.empty();
        }
        String significant = withoutLeadingZeros(trimmed);
        if (significant.length() > MAX_BUDGET_DIGITS) {
            return Optional.of(MAX_BUDGET);
        }
        return Optional.of(atMostMaxBudget(Duration.ofMillis(Long.parseLong(significant))));
    }

    private static Duration atMostMaxBudget(Duration budget) {
        return budget.compareTo(MAX_BUDGET) > 0 ? MAX_BUDGET : budget;
    }

    private static String withoutLeadingZeros(String digits) {
        int first = 0;
        while (first < digits.length() - 1 && digits.charAt(first) == '0') {
            first++;
        }
        return digits.substring(first);
    }

    private static boolean allDigits(String value, int count) {
        for (int i = 0; i < count; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
