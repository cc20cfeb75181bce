package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.retry.RetryBudgetConfig;

/** The retries a workload makes by itself: its attempts and its budget, each reported under its property. */
final class RetrySettings {

    private RetrySettings() {
    }

    static int maxAttempts(WorkloadResolver resolver) {
        return resolver.get(WorkloadKeys.MAX_ATTEMPTS).validate(attempts -> {
            if (attempts < 1 || attempts > WorkloadSettings.MAX_ATTEMPTS) {
                throw new IllegalArgumentException("must be between 1 (no retries) and "
                        + WorkloadSettings.MAX_ATTEMPTS + ", was " + attempts);
            }
            return attempts;
        });
    }

    /** The retry budget, each value checked by the budget's own builder and reported under its property. */
    static RetryBudgetConfig budget(WorkloadResolver resolver) {
        RetryBudgetConfig.Builder budget = RetryBudgetConfig.builder();
        resolver.get(WorkloadKeys.PERCENT_CAN_RETRY).validate(budget::percentCanRetry);
        resolver.get(WorkloadKeys.MIN_RETRIES_PER_SECOND).validate(budget::minRetriesPerSecond);
        resolver.get(WorkloadKeys.RETRY_WINDOW).validate(budget::window);
        resolver.get(WorkloadKeys.BACKOFF_CAP).validate(budget::backoffCap);
        // Checked against the cap by the builder: reported under the base, whose message names the cap.
        return resolver.get(WorkloadKeys.BACKOFF_BASE).validate(base -> budget.backoffBase(base).build());
    }
}
