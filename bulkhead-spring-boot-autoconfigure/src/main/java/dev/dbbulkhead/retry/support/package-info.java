/**
 * Retry budgets for retriers other than the workload's own: {@link dev.dbbulkhead.retry.support.DbBulkheadRetryPolicy}
 * for spring-retry. Spring's own {@code @Retryable} asks through
 * {@link dev.dbbulkhead.annotation.DbBulkheadRetryPredicate}.
 */
@NullMarked
package dev.dbbulkhead.retry.support;

import org.jspecify.annotations.NullMarked;
