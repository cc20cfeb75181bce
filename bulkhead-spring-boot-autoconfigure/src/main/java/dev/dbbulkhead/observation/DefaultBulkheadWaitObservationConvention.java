package dev.dbbulkhead.observation;

import io.micrometer.common.KeyValues;

/**
 * The wait observation as db-bulkhead names it: {@value BulkheadObservations#WAIT}, contextual name
 * {@code bulkhead <workload> wait}, the keys {@code workload} and {@code outcome}, and {@code shed=true} for the
 * spans of waits the CoDel queue discipline refused. Extend it to add keys.
 */
public class DefaultBulkheadWaitObservationConvention implements BulkheadWaitObservationConvention {

    @Override
    public String getName() {
        return BulkheadObservations.WAIT;
    }

    @Override
    public String getContextualName(BulkheadObservationContext context) {
        return context.defaultContextualName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(BulkheadObservationContext context) {
        return context.documentedKeyValues();
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(BulkheadObservationContext context) {
        return context.documentedHighCardinalityKeyValues();
    }
}
