package dev.dbbulkhead.fleettests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * One scenario's judgement from the server's side. Every sample taken while it runs must show at most the budget
 * plus the floors of the instances that may be running unleased then ({@code allowance}); the scenario adds checks
 * of its own over the same samples, and the figures of its row in {@link Figures}. Samples are judged after the
 * fact, from what the sampler recorded, so a judgement never depends on when the test thread happened to look.
 */
final class Scenario {

    /** How many offending samples a failure lists. */
    private static final int SHOWN = 12;

    private final String name;
    private final int allowance;
    private final String allowanceReason;
    private final Fleet fleet;
    private final long started = System.nanoTime();
    private final List<String> violations = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<String> fences = new ArrayList<>();
    private final List<String> fairSplits = new ArrayList<>();

    /**
     * @param allowance       how many instances may be running unleased on their floor at once in this scenario
     * @param allowanceReason which those are, for the figures
     */
    Scenario(String name, int allowance, String allowanceReason, Fleet fleet) {
        this.name = name;
        this.allowance = allowance;
        this.allowanceReason = allowanceReason;
        this.fleet = fleet;
    }

    /** Σ member connections may not pass this at any sample. */
    int bound() {
        return Fleet.BUDGET + Fleet.FLOOR * allowance;
    }

    /** A remark for the figures' notes. */
    void note(String note) {
        notes.add(note);
    }

    /** A failed check that is not about samples. */
    void violation(String violation) {
        violations.add(violation);
    }

    /** Fails the scenario if any of {@code samples} (from {@link #samples}) shows what {@code offends}. */
    void check(String rule, List<Sample> samples, Predicate<Sample> offends) {
        List<Sample> offending = samples.stream().filter(offends).toList();
        if (!offending.isEmpty()) {
            violations.add(rule + ": broken at " + offending.size() + " of " + samples.size() + " samples, e.g.\n"
                    + offending.stream().limit(SHOWN).map(sample -> "    " + sample.describe(started))
                    .collect(Collectors.joining("\n")));
        }
    }

    /** The samples taken from {@code from} to {@code to}. */
    List<Sample> samples(long from, long to) {
        return fleet.sampler().between(from, to);
    }

    /**
     * Waits for the fair split among {@code members} from {@code event} on and reports how long it took after it,
     * as the figure {@code what}.
     */
    Sample awaitFairSplit(String what, Collection<Instance> members, long event, Duration limit) {
        try {
            Sample reached = fleet.awaitFairSplit(members, event, limit);
            fairSplits.add(what + " " + seconds(reached.at() - event));
            return reached;
        } catch (AssertionError notReached) {
            fairSplits.add(what + " not within " + limit.toSeconds() + " s");
            throw notReached;
        }
    }

    /**
     * Reports how long after {@code fault} the faulted instance's member sessions were gone from the server, judged on
     * the samples until {@code until}.
     *
     * @return whether they were gone by then
     */
    boolean reportTimeToFence(String what, Instance faulted, long fault, long until) {
        List<Sample> window = samples(fault, until);
        Sample fenced = window.stream().filter(sample -> sample.memberConnections(faulted.name()) == 0).findFirst()
                .orElse(null);
        if (fenced != null) {
            fences.add(what + " " + seconds(fenced.at() - fault));
            return true;
        }
        int left = window.isEmpty() ? -1 : window.getLast().memberConnections(faulted.name());
        fences.add(what + " not fenced in " + seconds(until - fault) + " (" + left + " sessions still open)");
        return false;
    }

    /**
     * Fails the scenario where, from {@code fault} to {@code until}, another member was granted more than
     * {@code shareBefore} while the faulted instance still had sessions on the server: its share was given away
     * before it was fenced.
     */
    void checkNoShareGivenAwayBeforeFencing(Instance faulted, List<Instance> others, int shareBefore, long fault,
                                            long until) {
        check(faulted.name() + "'s share given to another member while its sessions were still open",
                samples(fault, until), sample -> sample.memberConnections(faulted.name()) > 0
                        && others.stream().anyMatch(other -> sample.unexpiredLease(other.name())
                        .map(lease -> lease.granted() > shareBefore).orElse(false)));
    }

    /**
     * Judges every sample of the scenario against the bound, keeps them in a file for a reader of a failed run and
     * returns the scenario's row of figures.
     *
     * @param failure what ended the scenario early, or null
     */
    Figures.Row finish(Throwable failure) {
        long ended = System.nanoTime();
        List<Sample> samples = samples(started, ended);
        check("Σ member connections ≤ budget " + Fleet.BUDGET + " + " + allowance + " × floor " + Fleet.FLOOR,
                samples, sample -> sample.memberConnections() > bound());
        if (samples.isEmpty()) {
            violations.add("no sample taken");
        }
        if (failure != null) {
            violations.add("stopped early: " + failure);
        }
        writeSamples(samples);
        int worst = samples.stream().mapToInt(Sample::memberConnections).max().orElse(-1);
        List<String> allNotes = new ArrayList<>();
        allNotes.add(violations.isEmpty() ? "passed" : "FAILED (" + violations.size() + " checks)");
        allNotes.add("allowance " + allowance + ": " + allowanceReason);
        allNotes.addAll(notes);
        return new Figures.Row(name, worst, bound(), joined(fences), joined(fairSplits),
                String.join("; ", allNotes));
    }

    /** Throws, listing every broken check, if any. */
    void assertPassed(Throwable failure) {
        if (!violations.isEmpty()) {
            AssertionError error = new AssertionError(name + ":\n  " + String.join("\n  ", violations));
            if (failure != null) {
                error.initCause(failure);
            }
            throw error;
        }
    }

    private void writeSamples(List<Sample> samples) {
        List<String> lines = new ArrayList<>();
        lines.add("## " + name + " (bound " + bound() + ")");
        samples.forEach(sample -> lines.add(sample.describe(started)));
        lines.add("");
        try {
            Files.write(fleet.samplesFile(), lines, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the samples of " + name, e);
        }
    }

    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }

    private static String joined(List<String> figures) {
        return figures.isEmpty() ? "—" : String.join("; ", figures);
    }
}
