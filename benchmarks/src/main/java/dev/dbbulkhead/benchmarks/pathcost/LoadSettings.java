package dev.dbbulkhead.benchmarks.pathcost;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * How long a fork of the load harness warms up and measures, and which caller configurations it measures. The run
 * hands them to each fork as options, {@code --warmup 5s --settle 1s --iterations 4 --iteration-time 1.5s
 * --callers 1,8,32,v64,v512}, the same options {@code path-cost} takes.
 *
 * @param warmup        how long the warm-up runs before anything is measured, shared equally by 8 platform callers
 *                      and then each caller configuration in turn ({@link #warmUpCallers()}): HikariCP opens its
 *                      connections, the JIT compiles the proxies (a call costs about 100 µs, so thousands of calls)
 *                      and, with more callers than places, the paths where callers wait. Warmed with 8 callers alone,
 *                      the first configurations measured ran while those were still compiling: 32 callers measured
 *                      first gave a third of the calls per second they gave after 20 and 24 callers had run
 * @param settle        how long each caller configuration runs before its first iteration, so that a queue
 *                      of its callers has formed and the JIT has seen its threads
 * @param iterations    measurement iterations per caller configuration
 * @param iterationTime the window of one iteration
 * @param callers       the caller configurations, in the order measured
 */
record LoadSettings(Duration warmup, Duration settle, int iterations, Duration iterationTime, List<Callers> callers) {

    /** The report's settings: about 40 s of load per fork, plus starting the JVM, PostgreSQL and the application. */
    static final LoadSettings FULL = new LoadSettings(Duration.ofSeconds(5), Duration.ofSeconds(1), 4,
            Duration.ofMillis(1_500), Callers.ALL);
    /** For trying the harness out: about 8 s of load per fork, numbers indicative only. */
    static final LoadSettings QUICK = new LoadSettings(Duration.ofSeconds(1), Duration.ofMillis(300), 2,
            Duration.ofMillis(500), Callers.ALL);

    LoadSettings {
        if (iterations < 1) {
            throw new IllegalArgumentException("at least one iteration, not " + iterations);
        }
        callers = List.copyOf(callers);
    }

    /** These settings with one option changed; {@code option} is one of {@link #arguments()}'s names. */
    LoadSettings with(String option, String value) {
        return switch (option) {
            case "--warmup" -> new LoadSettings(duration(value), settle, iterations, iterationTime, callers);
            case "--settle" -> new LoadSettings(warmup, duration(value), iterations, iterationTime, callers);
            case "--iterations" -> new LoadSettings(warmup, settle, Integer.parseInt(value), iterationTime, callers);
            case "--iteration-time" -> new LoadSettings(warmup, settle, iterations, duration(value), callers);
            case "--callers" -> new LoadSettings(warmup, settle, iterations, iterationTime, Callers.parseList(value));
            default -> throw new IllegalArgumentException("Unknown option " + option);
        };
    }

    /** What the warm-up runs, in order: 8 platform callers (nobody waits), then each measured configuration. */
    List<Callers> warmUpCallers() {
        return Stream.concat(Stream.of(Callers.WARM_UP), callers.stream()).toList();
    }

    /** How long each of {@link #warmUpCallers()} runs: an equal share of the warm-up. */
    Duration warmUpShare() {
        return warmup.dividedBy(warmUpCallers().size());
    }

    /** The options that give these settings to a fork. */
    List<String> arguments() {
        return List.of("--warmup", warmup.toString(), "--settle", settle.toString(), "--iterations",
                Integer.toString(iterations), "--iteration-time", iterationTime.toString(), "--callers",
                tokens(","));
    }

    /** The settings {@link #arguments()} gave; unnamed ones as in {@link #FULL}. */
    static LoadSettings fromArguments(List<String> arguments) {
        if (arguments.size() % 2 != 0) {
            throw new IllegalArgumentException("Options come in pairs: " + arguments);
        }
        LoadSettings settings = FULL;
        for (int i = 0; i < arguments.size(); i += 2) {
            settings = settings.with(arguments.get(i), arguments.get(i + 1));
        }
        return settings;
    }

    /** A duration written {@code 1.5s}, {@code 500ms}, {@code 2} (seconds) or in ISO-8601 ({@code PT1.5S}). */
    static Duration duration(String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (value.startsWith("pt")) {
                return Duration.parse(value);
            }
            if (value.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2).trim()));
            }
            String seconds = value.endsWith("s") ? value.substring(0, value.length() - 1).trim() : value;
            return Duration.ofMillis(new BigDecimal(seconds).movePointRight(3).longValueExact());
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("Not a duration: " + text + " (write 1.5s or 500ms)", e);
        }
    }

    /** "5 s warm-up (8 platform threads, then each caller configuration in turn, …), then per caller …". */
    String describe() {
        return seconds(warmup) + " warm-up (" + Callers.WARM_UP.label() + ", then each caller configuration in turn,"
                + " equal shares), then per caller configuration (" + tokens(", ") + ") " + seconds(settle)
                + " settling and " + iterations + " × " + seconds(iterationTime) + " measured";
    }

    private String tokens(String separator) {
        return callers.stream().map(Callers::token).collect(Collectors.joining(separator));
    }

    static String seconds(Duration duration) {
        return BigDecimal.valueOf(duration.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
    }
}
