package dev.dbbulkhead.annotation;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import dev.dbbulkhead.transaction.DeadlineExceededException;
import java.lang.reflect.Method;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.resilience.retry.MethodRetryPredicate;

/**
 * Lets Spring's {@code @Retryable} retry a database operation only within its workload's retry budget:
 * {@code @Retryable(predicate = DbBulkheadRetryPredicate.class)} on a {@code @DbBulkhead} method (or on a method that
 * calls one, or a workload's template). A failure is retried only when it is safe to retry — a serialization failure,
 * a deadlock, a refusal of the gate other than an interrupt; never an unknown commit outcome — and the budget of its
 * workload grants it ({@link dev.dbbulkhead.transaction.WorkloadRetries#tryRetry}), so that however many retries {@code @Retryable} allows, retries add at most the budget's share
 * to the load of an overloaded database. Granted and refused retries are counted in {@code db.bulkhead.retries}.
 *
 * <p>The workload is the one that refused the call (a {@link BulkheadRejectedException}), else the one the method's
 * {@code @DbBulkhead} names; a failure of neither is not retried, since no budget bounds it. Spring makes the
 * predicate with the application's bean factory, which gives it the {@link BulkheadRegistry}.
 *
 * <p>Spring asks the predicate before its own count of attempts stops the retries, so on the last allowed failure the
 * budget counts a retry that is not made: the error is on the side of fewer retries, never more. Combine it with a
 * workload's own {@code retry.max-attempts} above 1 and the attempts multiply; use one or the other.
 */
public class DbBulkheadRetryPredicate implements MethodRetryPredicate {

    private final BulkheadRegistry registry;

    /** @param registry the workloads whose budgets the retries draw on */
    public DbBulkheadRetryPredicate(BulkheadRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * @return whether {@code failure} of a call of {@code method} may be retried now; a granted retry is counted
     *         against the workload's budget, and the thread's next operation of that workload counts as that retry
     */
    @Override
    public boolean shouldRetry(Method method, Throwable failure) {
        String workload = workloadOf(method, failure);
        if (workload == null) {
            return false;
        }
        return registry.find(workload).flatMap(BulkheadTemplate::retries)
                .map(retries -> retries.tryRetry(failure))
                .orElse(false);
    }

    private static @Nullable String workloadOf(Method method, Throwable failure) {
        if (failure instanceof BulkheadRejectedException rejected) {
            return rejected.workload();
        }
        if (failure instanceof DeadlineExceededException exceeded) {
            return exceeded.workload();
        }
        return DbBulkheadDeclarations.workloadOf(method, method.getDeclaringClass());
    }

    @Override
    public String toString() {
        return "DbBulkheadRetryPredicate" + registry.names();
    }
}
