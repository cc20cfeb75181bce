package dev.dbbulkhead.benchmarks.overload;

import com.netflix.concurrency.limits.Limiter;
import dev.dbbulkhead.jdbc.SqlWork;
import java.util.concurrent.RejectedExecutionException;
import javax.sql.DataSource;

/**
 * Transactions behind a Netflix concurrency-limits {@link Limiter}, as its users wrap a call: acquire for the call's
 * context or be refused, then tell the listener how it went. A commit is a success; any failure is ignored, as the
 * library advises for errors that are not timeouts.
 */
public final class LimiterTransactions {

    private LimiterTransactions() {
    }

    /**
     * Plain transactions on {@code pool}, each acquired from {@code limiter} for {@code context}; a refusal is a
     * {@link RejectedExecutionException} saying {@code refusal}.
     */
    public static <C> GuardedTransactions behind(Limiter<C> limiter, C context, DataSource pool, String refusal) {
        return new GuardedTransactions() {
            @Override
            public <T> T transaction(SqlWork<T> work) throws Exception {
                Limiter.Listener listener = limiter.acquire(context)
                        .orElseThrow(() -> new RejectedExecutionException(refusal));
                T result;
                try {
                    result = PlainTransaction.run(pool, work);
                } catch (Exception | Error failure) {
                    listener.onIgnore();
                    throw failure;
                }
                listener.onSuccess();
                return result;
            }
        };
    }
}
