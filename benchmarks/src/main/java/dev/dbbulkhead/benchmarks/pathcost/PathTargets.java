package dev.dbbulkhead.benchmarks.pathcost;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;

import dev.dbbulkhead.benchmarks.report.MarkdownTable;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The targets of the user path, each judged on the means of the report: what the starter may cost over
 * {@code @Transactional} alone, against Resilience4j's bulkhead, and in allocation, and what admission at the pool
 * may cost over the same transaction unadmitted.
 */
final class PathTargets {

    /** What the starter with its meters may add to {@code @Transactional} alone when callers contend: 5 %. */
    static final double METERS_OVERHEAD = 0.05;
    /** What meters and observations together may add when callers contend: 10 %. */
    static final double OBSERVED_OVERHEAD = 0.10;
    /** What meters and observations may add for a single caller, who never waits: 5 %. */
    static final double SINGLE_CALLER_OVERHEAD = 0.05;
    /** What meters and observations may allocate per call beyond {@code @Transactional} alone. */
    static final double EXTRA_BYTES = 1024;
    /**
     * What admission at the pool may add to {@code @Transactional} alone while there are fewer callers than places
     * (1–8 callers, B = 16): each borrow passes the gate without waiting, so all it may cost is the passing, 5 %.
     */
    static final double POOL_ADMISSION_OVERHEAD = 0.05;
    /**
     * What admission at the pool may add from as many callers as places on (16 and more): the gate, not HikariCP,
     * then hands the places on, 10 %.
     */
    static final double POOL_ADMISSION_CONTENDED_OVERHEAD = 0.10;

    /** One target: its row for a caller configuration, where it applies and both its paths ran. */
    private sealed interface Target permits TimeTarget, AllocationTarget {

        Optional<Object[]> row(PathSummaries summaries, Callers callers);
    }

    /** The time per call of {@code path} is at most {@code 1 + maxOverhead} times {@code reference}'s. */
    private record TimeTarget(UserPath path, UserPath reference, double maxOverhead, Predicate<Callers> applies)
            implements Target {

        @Override
        public Optional<Object[]> row(PathSummaries summaries, Callers callers) {
            if (!applies.test(callers)) {
                return Optional.empty();
            }
            return both(summaries, path, reference, callers).map(pair -> {
                double micros = pair.measured().microsPerCall();
                double referenceMicros = pair.reference().microsPerCall();
                boolean met = meetsTimeTarget(micros, referenceMicros, maxOverhead);
                double over = micros - referenceMicros * (1 + maxOverhead);
                return new Object[] {path.label() + " ≤ " + (maxOverhead == 0 ? "" : number(1 + maxOverhead, 2)
                        + " × ") + reference.label(), callers.label(), signedPercent(micros / referenceMicros - 1)
                        + (met ? "" : ", " + number(over, 1) + " µs over"), verdict(met)};
            });
        }
    }

    /** {@code path} allocates at most {@link #EXTRA_BYTES} per call more than {@code reference}. */
    private record AllocationTarget(UserPath path, UserPath reference) implements Target {

        @Override
        public Optional<Object[]> row(PathSummaries summaries, Callers callers) {
            return both(summaries, path, reference, callers).map(pair -> {
                double extra = pair.measured().bytesPerCall() - pair.reference().bytesPerCall();
                boolean met = meetsAllocationTarget(pair.measured().bytesPerCall(), pair.reference().bytesPerCall());
                return new Object[] {path.label() + " allocates ≤ " + reference.label() + " + "
                        + number(EXTRA_BYTES, 0) + " B per call", callers.label(), signed(extra, 0) + " B/call"
                        + (met ? "" : ", " + number(extra - EXTRA_BYTES, 0) + " B over"), verdict(met)};
            });
        }
    }

    /**
     * The targets in the report's order. Those of "meters and observations on" are judged twice: as Boot sets the
     * observations up with metrics alone, and with a tracer listening, which is when the observations are made.
     */
    private static final List<Target> TARGETS = List.of(
            new TimeTarget(UserPath.STARTER_METERS, UserPath.TRANSACTIONAL, METERS_OVERHEAD, Callers::concurrent),
            new TimeTarget(UserPath.STARTER_OBSERVED, UserPath.TRANSACTIONAL, OBSERVED_OVERHEAD, Callers::concurrent),
            new TimeTarget(UserPath.STARTER_TRACED, UserPath.TRANSACTIONAL, OBSERVED_OVERHEAD, Callers::concurrent),
            new TimeTarget(UserPath.STARTER_OBSERVED, UserPath.RESILIENCE4J, 0, Callers::concurrent),
            new TimeTarget(UserPath.STARTER_TRACED, UserPath.RESILIENCE4J, 0, Callers::concurrent),
            new AllocationTarget(UserPath.STARTER_OBSERVED, UserPath.TRANSACTIONAL),
            new AllocationTarget(UserPath.STARTER_TRACED, UserPath.TRANSACTIONAL),
            new TimeTarget(UserPath.STARTER_OBSERVED, UserPath.TRANSACTIONAL, SINGLE_CALLER_OVERHEAD,
                    callers -> !callers.concurrent()),
            new TimeTarget(UserPath.STARTER_TRACED, UserPath.TRANSACTIONAL, SINGLE_CALLER_OVERHEAD,
                    callers -> !callers.concurrent()),
            new TimeTarget(UserPath.POOL_ADMISSION, UserPath.TRANSACTIONAL, POOL_ADMISSION_OVERHEAD,
                    PathTargets::fewerCallersThanPlaces),
            new TimeTarget(UserPath.POOL_ADMISSION, UserPath.TRANSACTIONAL, POOL_ADMISSION_CONTENDED_OVERHEAD,
                    callers -> !fewerCallersThanPlaces(callers)),
            new TimeTarget(UserPath.POOL_ADMISSION_BOUND, UserPath.TRANSACTIONAL, POOL_ADMISSION_OVERHEAD,
                    PathTargets::fewerCallersThanPlaces),
            new TimeTarget(UserPath.POOL_ADMISSION_BOUND, UserPath.TRANSACTIONAL, POOL_ADMISSION_CONTENDED_OVERHEAD,
                    callers -> !fewerCallersThanPlaces(callers)));

    private PathTargets() {
    }

    /** True when the callers never fill the gate's places (B = pool = {@link PathApplication#WIDTH}). */
    static boolean fewerCallersThanPlaces(Callers callers) {
        return callers.count() < PathApplication.WIDTH;
    }

    /** True when a mean time per call is at most {@code 1 + maxOverhead} times the reference's mean. */
    static boolean meetsTimeTarget(double micros, double referenceMicros, double maxOverhead) {
        return micros <= referenceMicros * (1 + maxOverhead);
    }

    /** True when a path allocates at most {@link #EXTRA_BYTES} per call more than {@code @Transactional} alone. */
    static boolean meetsAllocationTarget(double bytesPerCall, double plainBytesPerCall) {
        return bytesPerCall <= plainBytesPerCall + EXTRA_BYTES;
    }

    /**
     * The targets, one row a target and caller configuration; "measured" is the difference to the reference, and
     * where a target is not met, also how far above its limit the mean is. Targets whose paths did not run are left
     * out, and where none is left, there is no table.
     */
    static Optional<MarkdownTable> table(PathSummaries summaries) {
        MarkdownTable table = new MarkdownTable("target", "callers", "measured", "verdict");
        boolean any = false;
        for (Target target : TARGETS) {
            for (Callers callers : summaries.callers()) {
                Optional<Object[]> row = target.row(summaries, callers);
                row.ifPresent(table::row);
                any |= row.isPresent();
            }
        }
        return any ? Optional.of(table) : Optional.empty();
    }

    private record Pair(PathSummary measured, PathSummary reference) {
    }

    /** The changed build's summaries of both paths, if both ran with {@code callers}. */
    private static Optional<Pair> both(PathSummaries summaries, UserPath path, UserPath reference, Callers callers) {
        return summaries.after(path, callers).flatMap(measured -> summaries.after(reference, callers)
                .map(referenceSummary -> new Pair(measured, referenceSummary)));
    }

    private static String verdict(boolean met) {
        return met ? "met" : "**not met**";
    }

    /** A difference with its sign: "+12.3 %", "-1.0 %". */
    static String signedPercent(double share) {
        return Double.isNaN(share) ? "–" : (share >= 0 ? "+" : "") + MarkdownTable.percent(share);
    }

    /** A difference with its sign: "+820", "-12". */
    static String signed(double value, int decimals) {
        return Double.isNaN(value) ? "–" : (value >= 0 ? "+" : "") + number(value, decimals);
    }
}
