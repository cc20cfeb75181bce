package dev.dbbulkhead.benchmarks.pathcost;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * How many callers share the application in one caller configuration, and on which threads. Written as in the
 * {@code --callers} option: {@code 8} for 8 platform threads, {@code v64} for 64 virtual threads.
 */
record Callers(CallerKind kind, int count) {

    /** The configurations of the report, in its order: from no contention to more callers than the gate admits. */
    static final List<Callers> ALL = List.of(platform(1), platform(8), platform(32), virtual(64), virtual(512));

    /** The report's order, {@link #ALL}'s: platform threads, then virtual ones, fewer callers first. */
    static final Comparator<Callers> ORDER = Comparator.comparing(Callers::kind).thenComparingInt(Callers::count);

    /** What the warm-up runs: the JIT sees the concurrent paths, nobody waits. */
    static final Callers WARM_UP = platform(8);

    private static final String VIRTUAL_MARK = "v";

    Callers {
        if (count < 1) {
            throw new IllegalArgumentException("at least one caller, not " + count);
        }
    }

    static Callers platform(int count) {
        return new Callers(CallerKind.PLATFORM, count);
    }

    static Callers virtual(int count) {
        return new Callers(CallerKind.VIRTUAL, count);
    }

    /** The configuration written as {@code 8} or {@code v64}. */
    static Callers parse(String token) {
        String trimmed = token.trim();
        return trimmed.startsWith(VIRTUAL_MARK) ? virtual(Integer.parseInt(trimmed.substring(VIRTUAL_MARK.length())))
                : platform(Integer.parseInt(trimmed));
    }

    /** A comma-separated list of {@link #parse} tokens. */
    static List<Callers> parseList(String tokens) {
        return Arrays.stream(tokens.split(",")).map(Callers::parse).toList();
    }

    /** The inverse of {@link #parse}. */
    String token() {
        return (kind == CallerKind.VIRTUAL ? VIRTUAL_MARK : "") + count;
    }

    /** How the report names it: "1 platform thread", "64 virtual threads". */
    String label() {
        return count + " " + kind.name().toLowerCase() + (count == 1 ? " thread" : " threads");
    }

    /** True for the configurations where callers contend; the single caller measures the path uncontended. */
    boolean concurrent() {
        return count > 1;
    }
}
