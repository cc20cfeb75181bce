package dev.dbbulkhead.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The convention of the {@link BulkheadObservationDocumentation#WAIT wait} observation. A bean of this type
 * replaces {@link DefaultBulkheadWaitObservationConvention}.
 */
public interface BulkheadWaitObservationConvention extends ObservationConvention<BulkheadObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof BulkheadObservationContext bulkhead
                && bulkhead.observation() == BulkheadObservationDocumentation.WAIT;
    }
}
