package dev.dbbulkhead.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;
import org.springframework.beans.factory.DisposableBean;

/**
 * The per-key meters of the workloads with fair shares: {@value #KEY_OPERATIONS}, tagged {@code workload}, {@code key}
 * and {@code outcome}, for the keys each {@link KeyTally} names (at most {@code fair-share.metered-keys} at once) and
 * {@code key=other} for the rest. A displaced key's meters are removed, so that a workload never has more than its
 * metered keys and other in the registry; a key named again counts afresh, which rate queries read as a reset.
 */
public final class KeyMeterBinder implements DisposableBean {

    /** Counter of operations with a key, tagged {@code workload}, {@code key} and {@code outcome}: {@code admitted}, {@code rejected}. */
    public static final String KEY_OPERATIONS = "db.bulkhead.key.operations";

    private static final String DESCRIPTION = "Operations of a workload with fair shares, by key: its busiest keys"
            + " on their own, the others as key=other";

    private final MeterRegistry registry;
    private final Map<KeyTally.Counts, List<Meter>> meters = new ConcurrentHashMap<>();

    public KeyMeterBinder(MeterRegistry registry, KeyTallies tallies) {
        this.registry = registry;
        tallies.watch(this::bind);
    }

    private void bind(KeyTally tally) {
        register(tally.workload(), tally.other());
        tally.observe(new KeyTally.Observer() {
            @Override
            public void named(String workload, KeyTally.Counts counts) {
                register(workload, counts);
            }

            @Override
            public void displaced(String workload, KeyTally.Counts counts) {
                List<Meter> removed = meters.remove(counts);
                if (removed != null) {
                    removed.forEach(registry::remove);
                }
            }
        });
    }

    private void register(String workload, KeyTally.Counts counts) {
        meters.put(counts, List.of(counter(workload, counts, "admitted", KeyTally.Counts::admitted),
                counter(workload, counts, "rejected", KeyTally.Counts::rejected)));
    }

    private Meter counter(String workload, KeyTally.Counts counts, String outcome,
                          ToDoubleFunction<KeyTally.Counts> value) {
        return FunctionCounter.builder(KEY_OPERATIONS, counts, value).description(DESCRIPTION)
                .tag("workload", workload).tag("key", counts.key()).tag("outcome", outcome).register(registry);
    }

    /** Removes every per-key meter: the bulkheads close with the application context. */
    @Override
    public void destroy() {
        meters.values().forEach(workloadMeters -> workloadMeters.forEach(registry::remove));
        meters.clear();
    }
}
