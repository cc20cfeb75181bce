/**
 * Retries that cannot amplify an overload. A retried operation is new load arriving exactly when the database or
 * the gate said it had too much; retrying every failure as often as configured multiplies the offered load under
 * overload. The model is Finagle's retry budget: per workload, retries may spend at most a share of the first
 * attempts seen over a sliding window plus a small floor ({@link dev.dbbulkhead.retry.RetryBudget}, configured by
 * {@link dev.dbbulkhead.retry.RetryBudgetConfig}); only failures that are safe to try again are retried at all
 * ({@link dev.dbbulkhead.retry.RetryableFailures}); and retries are spread by jittered backoff bounded by the time
 * left ({@link dev.dbbulkhead.retry.RetryBackoff}). Knows nothing of the gate's internals or of any framework.
 */
@NullMarked
package dev.dbbulkhead.retry;

import org.jspecify.annotations.NullMarked;
