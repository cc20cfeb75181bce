package dev.dbbulkhead.benchmarks.pathcost;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The iterations of a run, gathered by path, build and caller configuration, and summarized for the report. */
final class PathSummaries {

    private record Key(UserPath path, Variant variant, Callers callers) {
    }

    private final Map<Key, List<IterationResult>> iterations = new LinkedHashMap<>();

    /** Adds an iteration measured from {@code variant}'s build. */
    void add(Variant variant, IterationResult result) {
        iterations.computeIfAbsent(new Key(result.path(), variant, result.callers()), key -> new ArrayList<>())
                .add(result);
    }

    void addAll(Variant variant, List<IterationResult> results) {
        results.forEach(result -> add(variant, result));
    }

    /** The summary of one row, if the run measured it. */
    Optional<PathSummary> get(UserPath path, Variant variant, Callers callers) {
        return Optional.ofNullable(iterations.get(new Key(path, variant, callers))).map(PathSummary::of);
    }

    /** The summary of the changed build (or the only one) of {@code path}. */
    Optional<PathSummary> after(UserPath path, Callers callers) {
        return get(path, Variant.AFTER, callers);
    }

    /** The caller configurations measured, in the report's order. */
    List<Callers> callers() {
        return iterations.keySet().stream().map(Key::callers).distinct()
                .sorted(Callers.ORDER).toList();
    }

    /** True when some path was also measured from a build before the change. */
    boolean hasBefore() {
        return iterations.keySet().stream().anyMatch(key -> key.variant() == Variant.BEFORE);
    }

    /** Calls that failed in any iteration: the harness is sized so that there are none. */
    long errors() {
        return iterations.values().stream().flatMap(List::stream).mapToLong(IterationResult::errors).sum();
    }
}
