package dev.dbbulkhead.saturation;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link DatabaseSampler} samples.
 *
 * @param interval     the time from the end of one sample to the start of the next; from 100 ms to 1 hour
 * @param queryTimeout the longest a sample may take, its connection included: the server ends the query after it,
 *                     and a server that stops answering is given up after twice it; above 0 and at most the interval
 * @param serverCpus   the database server's processors, which PostgreSQL does not report: 0 when not known, else
 *                     from 1 to 4,096
 */
public record SamplerSettings(Duration interval, Duration queryTimeout, int serverCpus) {

    /** A sample a second: changes of load are seen within about a second, at one short query a second. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
    /** A sample that takes half the default interval is no longer cheap. */
    public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofMillis(500);
    /** The server's processors, when not configured. */
    public static final int UNKNOWN_CPUS = 0;
    /** How many intervals a sample counts as current: one late or failed sample does not make the signals unknown. */
    public static final int FRESH_INTERVALS = 3;

    private static final Duration SHORTEST_INTERVAL = Duration.ofMillis(100);
    private static final Duration LONGEST_INTERVAL = Duration.ofHours(1);
    private static final int MOST_CPUS = 4_096;

    public SamplerSettings {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(queryTimeout, "queryTimeout");
        if (interval.compareTo(SHORTEST_INTERVAL) < 0 || interval.compareTo(LONGEST_INTERVAL) > 0) {
            throw new IllegalArgumentException("sampling interval must be between 100ms and 1h, was " + interval);
        }
        if (queryTimeout.isNegative() || queryTimeout.isZero() || queryTimeout.compareTo(interval) > 0) {
            throw new IllegalArgumentException("sampling query timeout must be above 0s and at most the interval ("
                    + interval + "), was " + queryTimeout);
        }
        if (serverCpus < UNKNOWN_CPUS || serverCpus > MOST_CPUS) {
            throw new IllegalArgumentException("server cpus must be 0 (not known) or between 1 and " + MOST_CPUS
                    + ", was " + serverCpus);
        }
    }

    /** A sample every second, each given up after half a second; the server's processors not known. */
    public static SamplerSettings defaults() {
        return new SamplerSettings(DEFAULT_INTERVAL, DEFAULT_QUERY_TIMEOUT, UNKNOWN_CPUS);
    }

    /** How old a sample may be and still count as current: {@value #FRESH_INTERVALS} intervals. */
    public Duration freshFor() {
        return interval.multipliedBy(FRESH_INTERVALS);
    }
}
