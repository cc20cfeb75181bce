package dev.dbbulkhead.deadline;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Reads the budget a caller sends in a header. A value that is not one of the form's is no budget
 * ({@link Optional#empty()}), never an error: a header comes from the client, and a malformed one must not fail the
 * request; the application's own budget then applies.
 */
public final class TimeoutHeaderValues {

    /** gRPC's limit on the digits of a {@code grpc-timeout}: at most 8. */
    private static final int GRPC_MAX_DIGITS = 8;
    /** The longest plain milliseconds value read: PostgreSQL's longest statement timeout, about 24.8 days. */
    private static final long MAX_MILLIS = Integer.MAX_VALUE;

    private TimeoutHeaderValues() {
    }

    /**
     * A {@code grpc-timeout} value: 1 to 8 digits and a unit, {@code H} hours, {@code M} minutes, {@code S} seconds,
     * {@code m} milliseconds, {@code u} microseconds, {@code n} nanoseconds (gRPC over HTTP/2), e.g. {@code 250m}.
     * Zero is a budget already spent.
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
        return unit == null ? Optional.empty() : Optional.of(Duration.of(amount, unit));
    }

    /**
     * A plain count of milliseconds, as Envoy's {@code x-envoy-expected-rq-timeout-ms} sends it: digits only, at most
     * 2147483647. Zero is a budget already spent.
     */
    public static Optional<Duration> milliseconds(String value) {
        String trimmed = value.trim();
        if (trimmed.isEmpty() || trimmed.length() > 10 || !allDigits(trimmed, trimmed.length())) {
            return Optional.empty();
        }
        long millis = Long.parseLong(trimmed);
        return millis > MAX_MILLIS ? Optional.empty() : Optional.of(Duration.ofMillis(millis));
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
