package dev.dbbulkhead.retry.support;

import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.WorkloadRetries;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.retry.RetryContext;
import org.springframework.retry.RetryPolicy;

/**
 * A spring-retry {@link RetryPolicy} that retries a workload's operation only within the workload's retry budget: a
 * failure is retried when the policy it wraps would retry it, the failure is safe to retry (a serialization failure,
 * a deadlock, a refusal of the gate other than an interrupt; never an unknown commit outcome) and the budget grants
 * the retry, so that however many attempts the wrapped policy allows, retries add at most the budget's share to the
 * load of an overloaded database.
 *
 * <pre>{@code
 * RetryTemplate retries = new RetryTemplate();
 * retries.setRetryPolicy(DbBulkheadRetryPolicy.of(registry, "orders", new SimpleRetryPolicy(3)));
 * retries.execute(attempt -> orders.placeOrder(order));
 * }</pre>
 *
 * <p>spring-retry asks a policy more than once after each failure (whether to back off, whether to rethrow, whether
 * to go on); the budget is asked once per failure and its answer kept in the retry context. The wrapped policy is
 * asked first, so that the last failure it would not retry costs the budget nothing. Retries must run on the thread
 * of the first attempt, as {@code RetryTemplate} runs them.
 */
public final class DbBulkheadRetryPolicy implements RetryPolicy {

    private static final long serialVersionUID = 1L;

    /** The retry context attribute that keeps the budget's answer for the failure of one attempt. */
    static final String ANSWER = DbBulkheadRetryPolicy.class.getName() + ".answer";

    private final transient WorkloadRetries retries;
    private final RetryPolicy delegate;

    /**
     * @param retries  the workload's retries, whose budget is asked
     * @param delegate decides first, as it would alone (attempts, exception types)
     */
    public DbBulkheadRetryPolicy(WorkloadRetries retries, RetryPolicy delegate) {
        this.retries = Objects.requireNonNull(retries, "retries");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /**
     * A policy asking the budget of workload {@code workload} of {@code registry}.
     *
     * @throws IllegalArgumentException when no such workload exists, or its template was given no retries
     */
    public static DbBulkheadRetryPolicy of(BulkheadRegistry registry, String workload, RetryPolicy delegate) {
        WorkloadRetries retries = registry.template(workload).retries().orElseThrow(() ->
                new IllegalArgumentException("The template of bulkhead workload '" + workload + "' has no retries"));
        return new DbBulkheadRetryPolicy(retries, delegate);
    }

    @Override
    public boolean canRetry(RetryContext context) {
        if (!delegate.canRetry(context)) {
            return false;
        }
        Throwable failure = context.getLastThrowable();
        if (failure == null) {
            // Asked before the first attempt: nothing to retry yet.
            return true;
        }
        if (context.getAttribute(ANSWER) instanceof Answer answer && answer.retryCount() == context.getRetryCount()) {
            return answer.granted();
        }
        boolean granted = retries.tryRetry(failure);
        context.setAttribute(ANSWER, new Answer(context.getRetryCount(), granted));
        return granted;
    }

    @Override
    public RetryContext open(@Nullable RetryContext parent) {
        return delegate.open(parent);
    }

    @Override
    public void close(RetryContext context) {
        delegate.close(context);
    }

    @Override
    public void registerThrowable(RetryContext context, @Nullable Throwable failure) {
        delegate.registerThrowable(context, failure);
    }

    @Override
    public String toString() {
        return "DbBulkheadRetryPolicy[" + retries + ", " + delegate + "]";
    }

    /** The budget's answer for the failure that made the context's retry count what it is. */
    private record Answer(int retryCount, boolean granted) {
    }
}
