package dev.dbbulkhead.autoconfigure.fleet;

import dev.dbbulkhead.fleet.FleetTotals;
import dev.dbbulkhead.saturation.FleetTotalPolicy;
import dev.dbbulkhead.saturation.support.DatabaseSignalsSampling;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * The fleet's total from the database's signals as this instance last sampled them, from the moment the application
 * has started. The membership joins before schema initialisation and the JPA bootstrap, while the signals come with
 * the gates' database limits, which need the transaction managers those prepare: until the application has started
 * the fleet holds its total, as it does while no sample is current (the sampler failing or hung).
 */
final class FleetTotalsFromSignals implements FleetTotals, ApplicationListener<ContextRefreshedEvent> {

    private final ObjectProvider<DatabaseSignalsSampling> signals;
    private final AtomicReference<@Nullable FleetTotals> following = new AtomicReference<>();

    FleetTotalsFromSignals(ObjectProvider<DatabaseSignalsSampling> signals) {
        this.signals = signals;
    }

    @Override
    public OptionalInt next(Fleet fleet) {
        FleetTotals policy = following.get();
        return policy == null ? OptionalInt.empty() : policy.next(fleet);
    }

    @Override
    public void onApplicationEvent(ContextRefreshedEvent event) {
        if (following.get() == null) {
            signals.ifAvailable(sampling -> following.compareAndSet(null,
                    FleetTotalPolicy.following(sampling.sampler())));
        }
    }
}
