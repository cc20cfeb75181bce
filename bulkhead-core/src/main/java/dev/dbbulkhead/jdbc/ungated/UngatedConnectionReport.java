package dev.dbbulkhead.jdbc.ungated;

import java.util.List;
import java.util.Map;

/**
 * What one pool's detector has seen since it was made. For observation: the counts move while it is read.
 *
 * @param pool           the pool
 * @param connections    connections borrowed outside every gate and not recognised, refused ones included
 * @param callSites      those borrows by call site, most first
 * @param otherCallSites those of call sites past the most the pool keeps, counted together
 * @param recognised     borrows outside the gates by recognised infrastructure, by the rule that recognised them
 */
public record UngatedConnectionReport(String pool, long connections, List<CallSiteCount> callSites,
                                      long otherCallSites, Map<String, Long> recognised) {

    public UngatedConnectionReport {
        callSites = List.copyOf(callSites);
        recognised = Map.copyOf(recognised);
    }

    /**
     * One call site and how often it borrowed.
     *
     * @param site        the call site
     * @param connections its borrows outside every gate
     */
    public record CallSiteCount(CallSite site, long connections) {
    }
}
