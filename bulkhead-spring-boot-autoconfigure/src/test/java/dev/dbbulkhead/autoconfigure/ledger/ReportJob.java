package dev.dbbulkhead.autoconfigure.ledger;

import java.sql.Connection;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import javax.sql.DataSource;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;

/**
 * A Quartz job that takes a connection: Quartz makes it and runs it on a worker thread of its own. What it needs comes
 * in its job data: {@code dataSource}, {@code whileHeld} (read while the connection is out) and {@code seen}, completed
 * with what that said or with the failure.
 */
public class ReportJob implements Job {

    @Override
    @SuppressWarnings("unchecked")
    public void execute(JobExecutionContext context) throws JobExecutionException {
        var data = context.getMergedJobDataMap();
        CompletableFuture<Integer> seen = (CompletableFuture<Integer>) data.get("seen");
        try (Connection connection = ((DataSource) data.get("dataSource")).getConnection()) {
            seen.complete(((IntSupplier) data.get("whileHeld")).getAsInt());
        } catch (Exception | Error failed) {
            seen.completeExceptionally(failed);
        }
    }
}
