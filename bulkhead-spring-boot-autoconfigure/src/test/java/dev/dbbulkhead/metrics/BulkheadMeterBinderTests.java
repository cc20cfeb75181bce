package dev.dbbulkhead.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.gate.GateListener;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class BulkheadMeterBinderTests {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void aWorkloadWhoseMetersAreAllDeniedIsNotListenedTo() {
        registry.config().meterFilter(MeterFilter.denyNameStartsWith("db.bulkhead."));

        assertThat(new BulkheadMeterBinder(registry).listener("orders")).isSameAs(GateListener.NONE);
    }

    @Test
    void aWorkloadWithOneMeterLeftIsListenedTo() {
        registry.config().meterFilter(MeterFilter.deny(id -> id.getName().startsWith("db.bulkhead.")
                && !id.getName().equals(BulkheadMeterBinder.ADMITTED)));

        GateListener listener = new BulkheadMeterBinder(registry).listener("orders");
        listener.onAdmitted("orders", 0L);

        assertThat(listener).isNotSameAs(GateListener.NONE);
        assertThat(registry.get(BulkheadMeterBinder.ADMITTED).tag("workload", "orders").counter().count())
                .isEqualTo(1.0);
    }
}
