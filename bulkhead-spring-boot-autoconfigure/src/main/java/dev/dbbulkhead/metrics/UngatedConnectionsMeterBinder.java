package dev.dbbulkhead.metrics;

import dev.dbbulkhead.jdbc.ungated.UngatedConnectionDetector;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The {@code db.bulkhead.ungated.connections} counter of each pool the gates admit to, tagged {@code pool} (the
 * DataSource bean name): a function counter that reads the pool's detector, so that a borrow records nothing on the
 * meter's account.
 */
public final class UngatedConnectionsMeterBinder implements MeterBinder {

    /** Counter of connections borrowed outside every gate and not recognised, refused ones included. */
    public static final String CONNECTIONS = "db.bulkhead.ungated.connections";

    private final WatchedPools pools;

    /** @param pools the pools watched */
    public UngatedConnectionsMeterBinder(WatchedPools pools) {
        this.pools = pools;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (UngatedConnectionDetector detector : pools.detectors()) {
            FunctionCounter.builder(CONNECTIONS, detector, UngatedConnectionDetector::connections)
                    .tag("pool", detector.pool())
                    .description("Connections of the pool borrowed outside every gate, by threads not inside an"
                            + " admitted operation, and not by recognised infrastructure; refused ones included")
                    .register(registry);
        }
    }
}
