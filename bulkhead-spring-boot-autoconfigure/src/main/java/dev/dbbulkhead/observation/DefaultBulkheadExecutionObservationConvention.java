package dev.dbbulkhead.observation;

import io.micrometer.common.KeyValues;

/**
 * The execution observation as db-bulkhead names it: {@value BulkheadObservations#EXECUTION}, contextual name
 * {@code bulkhead <workload>}, the keys {@code workload} and {@code outcome}. Extend it to add keys.
 */
public class DefaultBulkheadExecutionObservationConvention implements BulkheadExecutionObservationConvention {

    @Override
    public String getName() {
        return BulkheadObservations.EXECUTION;
    }

    @Override
    public String getContextualName(BulkheadObservationContext context) {
        return context.defaultContextualName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(BulkheadObservationContext context) {
        return context.documentedKeyValues();
    }
}
