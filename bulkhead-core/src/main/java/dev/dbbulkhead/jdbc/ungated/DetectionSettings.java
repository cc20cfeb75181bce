package dev.dbbulkhead.jdbc.ungated;

import java.util.Objects;

/**
 * How the pools' detectors read, keep and answer a borrow outside every gate.
 *
 * @param rules        which frames are libraries and which callers are recognised infrastructure
 * @param refuse       whether such a borrow is refused with {@link UngatedConnectionException} (for test suites)
 *                     rather than only reported
 * @param maxCallSites how many distinct call sites each pool keeps, 1 to {@value #MOST_CALL_SITES}; the borrows of
 *                     any further site are counted together
 * @param advice       what to do about a reported borrow, in the terms of the application's framework
 */
public record DetectionSettings(CallerRules rules, boolean refuse, int maxCallSites, String advice) {

    /** The call sites a pool keeps unless told otherwise. */
    public static final int DEFAULT_CALL_SITES = 100;
    /** The most call sites a pool may be told to keep: each is a few hundred bytes. */
    public static final int MOST_CALL_SITES = 10_000;

    /** The advice of a plain-JDBC application. */
    public static final String PLAIN_JDBC_ADVICE = "Run it through a JdbcBulkhead (or inside a permit of its"
            + " AdmissionGate), or recognise its caller with CallerRules.recognising, or run it in UngatedWork.allow"
            + " if it is meant to run outside the gates.";

    /**
     * @throws IllegalArgumentException when {@code maxCallSites} is out of its range
     */
    public DetectionSettings {
        Objects.requireNonNull(rules, "rules");
        Objects.requireNonNull(advice, "advice");
        if (maxCallSites < 1 || maxCallSites > MOST_CALL_SITES) {
            throw new IllegalArgumentException("must be between 1 and " + MOST_CALL_SITES
                    + " (distinct call sites kept per pool)");
        }
    }

    /** Reporting, not refusing, {@value #DEFAULT_CALL_SITES} call sites per pool, the default rules. */
    public static DetectionSettings defaults() {
        return new DetectionSettings(CallerRules.defaults(), false, DEFAULT_CALL_SITES, PLAIN_JDBC_ADVICE);
    }

    /** What a report or a refusal says of a borrow from {@code site} on {@code pool}, and what to do. */
    public String describe(String pool, CallSite site) {
        return "A connection of pool '" + pool + "' was borrowed outside every gate by " + site + ": no workload's"
                + " limit bounds this work, so the pool and the database may be busier than the gates show. "
                + advice;
    }
}
