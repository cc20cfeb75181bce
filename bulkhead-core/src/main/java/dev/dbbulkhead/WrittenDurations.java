package dev.dbbulkhead;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Durations as a configuration writes them ({@code 50ms}, {@code 30s}, {@code 2m}), for the reports, warnings and
 * endpoint a user compares with their {@code application.yml}: {@code PT0.05S} is what {@link Duration#toString()}
 * gives, and nobody writes it.
 */
public final class WrittenDurations {

    /** Spring Boot's units, largest first: a duration is written in the largest that holds it whole. */
    private static final long[] NANOS = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L,
            1_000_000L, 1_000L, 1L};

    private static final String[] UNITS = {"d", "h", "m", "s", "ms", "us", "ns"};

    /** An ISO-8601 duration inside a message: {@code PT0.05S}, {@code PT1M30S}, {@code -PT1S}. */
    private static final Pattern ISO = Pattern.compile("(?<![A-Za-z])-?PT(?:-?\\d+H)?(?:-?\\d+M)?(?:-?\\d+(?:\\.\\d+)?S)?");

    private WrittenDurations() {
    }

    /** {@code duration} in the largest unit that holds it whole: {@code 50ms}, {@code 2m}, {@code 0s}. */
    public static String of(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        long seconds = duration.getSeconds();
        int nanos = duration.getNano();
        for (int unit = 0; unit < NANOS.length; unit++) {
            long perUnit = NANOS[unit];
            if (perUnit >= 1_000_000_000L) {
                long secondsPerUnit = perUnit / 1_000_000_000L;
                if (nanos == 0 && seconds % secondsPerUnit == 0) {
                    return seconds / secondsPerUnit + UNITS[unit];
                }
            } else if (nanos % perUnit == 0 && Math.abs(seconds) <= Long.MAX_VALUE / (1_000_000_000L / perUnit)) {
                return Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L / perUnit), nanos / perUnit)
                        + UNITS[unit];
            }
        }
        return duration.toString(); // beyond what nanoseconds in a long can write
    }

    /** {@code value} as written when it is a duration, else as {@link String#valueOf(Object)} gives it. */
    public static String of(@Nullable Object value) {
        return value instanceof Duration duration ? of(duration) : String.valueOf(value);
    }

    /** {@code message} with every ISO-8601 duration in it written as the configuration writes it. */
    public static String in(String message) {
        Matcher iso = ISO.matcher(message);
        StringBuilder written = new StringBuilder();
        while (iso.find()) {
            String found = iso.group();
            String replacement = found;
            if (found.length() > 2 && !found.endsWith("PT")) {
                try {
                    replacement = of(Duration.parse(found));
                } catch (DateTimeParseException notADuration) {
                    replacement = found;
                }
            }
            iso.appendReplacement(written, Matcher.quoteReplacement(replacement));
        }
        return iso.appendTail(written).toString();
    }
}
