package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.jdbc.ungated.JobRefusals;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Logs the first refused run of each scheduled job, through the application's logging, naming the job, the workload
 * and why: a run refused at its first connection has not started and is skipped. Later refusals of the same job are
 * counted, not logged again (the dbbulkheads endpoint shows them).
 */
public final class SkippedRunLog implements JobRefusals.Listener {

    private static final Log logger = LogFactory.getLog(SkippedRunLog.class);

    @Override
    public void firstRefusal(String job, BulkheadRejectedException refusal) {
        logger.warn("A run of scheduled job " + job + " was skipped: workload '" + refusal.workload() + "' refused its"
                + " connection (" + refusal.reason() + ") before the run began, so nothing of it ran. Background work"
                + " should wait its turn rather than be refused: give the workload a longer queue-wait, or set its"
                + " when-full to wait. Logged once for this job; every skipped run is counted in the dbbulkheads"
                + " endpoint.");
    }
}
