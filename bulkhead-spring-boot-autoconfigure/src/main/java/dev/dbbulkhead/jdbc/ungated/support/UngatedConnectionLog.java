package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.jdbc.ungated.CallSite;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Logs, through the application's logging, a warning for each call site that borrows outside every gate, the first
 * time it does; and once when a pool keeps no more call sites. Never more, however often they borrow.
 */
public final class UngatedConnectionLog implements UngatedConnectionListener {

    private static final Log logger = LogFactory.getLog(UngatedConnectionLog.class);

    @Override
    public void newCallSite(String pool, CallSite site, String description, boolean refused) {
        logger.warn(description + (refused ? " Refused, as db.bulkhead.ungated.mode=fail asks."
                : " Logged once for this call site; every such borrow is counted in db.bulkhead.ungated.connections"
                        + " and listed in the dbbulkheads endpoint."));
    }

    @Override
    public void callSitesFull(String pool, int maxCallSites) {
        logger.warn("Pool '" + pool + "' has had connections borrowed outside every gate from " + maxCallSites
                + " distinct call sites, as many as db.bulkhead.ungated.max-call-sites keeps: further call sites are"
                + " counted together as other call sites, and no longer logged.");
    }
}
