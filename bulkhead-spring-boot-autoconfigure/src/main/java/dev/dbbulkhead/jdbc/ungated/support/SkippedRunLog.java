package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.jdbc.ungated.JobRefusals;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Logs the first refused run of each job — a scheduled method, a message listener, a Quartz job, a Batch step —
 * through the application's logging, naming the job, the workload and why: a run refused at its connection has not
 * begun the work of that connection. Later refusals of the same job are counted, not logged again (the dbbulkheads
 * endpoint shows them).
 */
public final class SkippedRunLog implements JobRefusals.Listener {

    private static final Log logger = LogFactory.getLog(SkippedRunLog.class);

    @Override
    public void firstRefusal(String job, BulkheadRejectedException refusal) {
        logger.warn("A run of " + job + " was refused: workload '" + refusal.workload() + "' refused its"
                + " connection (" + refusal.reason() + ") before its work began (a scheduled run is skipped, a Batch"
                + " step fails at the chunk, a message is left to its listener container's error handling). Background work"
                + " should wait its turn rather than be refused: give the workload a longer queue-wait, or set its"
                + " when-full to wait. Logged once for this job; every refused run is counted in the dbbulkheads"
                + " endpoint.");
    }
}
