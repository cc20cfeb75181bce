package dev.dbbulkhead.jdbc.ungated;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How the pools' detectors read, keep and answer a borrow outside every gate.
 *
 * @param rules        which frames are libraries and which callers are recognised infrastructure
 * @param refuse       whether such a borrow is refused with {@link UngatedConnectionException} (for test suites)
 *                     rather than only reported
 * @param maxCallSites how many distinct call sites each pool keeps, 1 to {@value #MOST_CALL_SITES}; the borrows of
 *                     any further site are counted together
 * @param advice       what to do about a borrow from the application's own frame, in the terms of the application's
 *                     framework
 * @param packagesAdvice how to declare the application's packages, in the same terms: what a report whose call site
 *                     is a guess asks for
 */
public record DetectionSettings(CallerRules rules, boolean refuse, int maxCallSites, String advice,
                                String packagesAdvice) {

    /** The call sites a pool keeps unless told otherwise. */
    public static final int DEFAULT_CALL_SITES = 100;
    /** The most call sites a pool may be told to keep: each is a few hundred bytes. */
    public static final int MOST_CALL_SITES = 10_000;

    /** The advice of a plain-JDBC application. */
    public static final String PLAIN_JDBC_ADVICE = "Run it through a JdbcBulkhead (or inside a permit of its"
            + " AdmissionGate), or recognise its caller with CallerRules.recognising, or run it in UngatedWork.allow"
            + " if it is meant to run outside the gates.";

    /** How a plain-JDBC application declares its packages. */
    public static final String PLAIN_JDBC_PACKAGES_ADVICE = "Declare the application's packages with"
            + " CallerRules.withApplicationPackages so that its own frame is named.";

    /**
     * @throws IllegalArgumentException when {@code maxCallSites} is out of its range
     */
    public DetectionSettings {
        Objects.requireNonNull(rules, "rules");
        Objects.requireNonNull(advice, "advice");
        Objects.requireNonNull(packagesAdvice, "packagesAdvice");
        if (maxCallSites < 1 || maxCallSites > MOST_CALL_SITES) {
            throw new IllegalArgumentException("must be between 1 and " + MOST_CALL_SITES
                    + " (distinct call sites kept per pool)");
        }
    }

    /** The settings of a plain-JDBC application: its packages declared with {@link #PLAIN_JDBC_PACKAGES_ADVICE}. */
    public DetectionSettings(CallerRules rules, boolean refuse, int maxCallSites, String advice) {
        this(rules, refuse, maxCallSites, advice, PLAIN_JDBC_PACKAGES_ADVICE);
    }

    /** Reporting, not refusing, {@value #DEFAULT_CALL_SITES} call sites per pool, the default rules. */
    public static DetectionSettings defaults() {
        return new DetectionSettings(CallerRules.defaults(), false, DEFAULT_CALL_SITES, PLAIN_JDBC_ADVICE);
    }

    /**
     * What a report or a refusal says of a borrow from {@code site} on {@code pool}, and what to do. A guessed site of
     * a library is never offered for allowing: every borrow that passes through it would go unreported.
     */
    public String describe(String pool, CallSite site) {
        String borrowed = "A connection of pool '" + pool + "' was borrowed outside every gate by " + site + ": no"
                + " workload's limit bounds this work, so the pool and the database may be busier than the gates show. ";
        if (site.application()) {
            return borrowed + advice;
        }
        if (rules.isLibrary(site.className())) {
            return borrowed + "No frame of the application's packages was on the stack: this frame, of a library, is"
                    + " a guess at where the work came from. Do not allow it: every borrow through it would go"
                    + " unreported. " + packagesAdvice;
        }
        return borrowed + "No frame of the application's packages was on the stack: this frame, the nearest outside"
                + " the known libraries, is a guess. If it is the application's code, " + lowerFirst(packagesAdvice)
                + " " + advice;
    }

    /**
     * What a report or a refusal says of a borrow from {@code site} on {@code pool} that no rule classified, so that the
     * default workload admitted it, on {@code thread}, of {@code executor} when it is known.
     */
    public String describeCaughtByDefault(String pool, CallSite site, String defaultWorkload, Thread thread,
                                          @Nullable String executor) {
        String caught = "A connection of pool '" + pool + "' was taken by " + site + " on thread '" + thread.getName()
                + "'" + (executor == null ? "" : " of executor '" + executor + "'") + ", and no rule named its"
                + " workload: the default workload '" + defaultWorkload + "' admitted it. ";
        if (site.application()) {
            return caught + "Name its workload with a rule (db.bulkhead.work.rules) or @DbBulkhead, or size the"
                    + " default workload for it.";
        }
        return caught + "No frame of the application's packages was on the stack, so this frame is a guess. "
                + packagesAdvice;
    }

    private static String lowerFirst(String sentence) {
        return sentence.isEmpty() ? sentence : Character.toLowerCase(sentence.charAt(0)) + sentence.substring(1);
    }
}
