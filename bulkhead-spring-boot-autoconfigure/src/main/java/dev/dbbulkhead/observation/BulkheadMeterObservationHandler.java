package dev.dbbulkhead.observation;

import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.Observation;
import org.springframework.core.Ordered;

/**
 * The meter handler of the bulkhead observations, which records nothing: the {@code db.bulkhead.*} meters already
 * time the wait and the execution, at a small part of the cost of a timer and a long-task timer built from an
 * observation (tags assembled and meters looked up on every start and stop, a sorted set of active samples shared by
 * all callers).
 *
 * <p>Spring Boot offers an observation to the first of its meter handlers that supports it, and orders them as beans:
 * this one comes first and supports only {@link BulkheadObservationContext}s, so Boot's default meter handler never
 * sees a bulkhead observation, while every other handler (a tracer's) still does. An application that wants the
 * observations' own timers anyway defines a bean of this type that supports nothing.
 */
public class BulkheadMeterObservationHandler implements MeterObservationHandler<BulkheadObservationContext>, Ordered {

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof BulkheadObservationContext;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
