package dev.dbbulkhead.benchmarks.retry;

import dev.dbbulkhead.retry.RetryBudget;
import dev.dbbulkhead.retry.RetryBudgetConfig;
import java.util.function.BooleanSupplier;

/**
 * How the clients of one run decide whether a refused request is sent again, once its attempts allow it: always
 * (what a client retrying "up to N times" does), or when their shared {@link RetryBudget} grants the retry.
 *
 * @param label        how the report names the clients
 * @param firstAttempt run once per request, before its first attempt
 * @param mayRetry     asked before each retry; {@code false} gives the request up
 */
record RetryRule(String label, Runnable firstAttempt, BooleanSupplier mayRetry) {

    /** The label of {@link #attemptsOnly()}. */
    static final String NO_BUDGET = "no budget";
    /** The label of {@link #budgeted}. */
    static final String BUDGETED = "retry budget";

    /** Every retry the attempts allow. */
    static RetryRule attemptsOnly() {
        return new RetryRule(NO_BUDGET, () -> { }, () -> true);
    }

    /** Only the retries that one budget of {@code config}, shared by every client, grants. */
    static RetryRule budgeted(RetryBudgetConfig config) {
        RetryBudget budget = new RetryBudget(config);
        return new RetryRule(BUDGETED, budget::recordFirstAttempt, budget::tryWithdraw);
    }
}
