package dev.dbbulkhead.transaction;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.limit.AdaptiveLimit;
import dev.dbbulkhead.limit.AdaptiveLimitConfig;
import dev.dbbulkhead.limit.LimitChange;
import dev.dbbulkhead.limit.LimitSnapshot;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The adaptive limits of the workloads with {@code limit.mode=adaptive}, each steering its workload's gate; read by
 * the {@code dbbulkheads} endpoint and the budget check. Logs each burst of changes of a limit once, at INFO.
 */
public final class AdaptiveLimits {

    private static final Log logger = LogFactory.getLog(AdaptiveLimits.class);

    private final Map<String, AdaptiveLimit> limitsByWorkload = new ConcurrentHashMap<>();

    /** A new limit for a gate about to be built with B = {@code startConcurrent}; {@link #steer} it once it is. */
    public AdaptiveLimit create(AdaptiveLimitConfig config, int startConcurrent) {
        return new AdaptiveLimit(config, startConcurrent, AdaptiveLimits::log);
    }

    /** Lets {@code limit} steer {@code gate}, and records it under the gate's workload. */
    public void steer(AdaptiveLimit limit, AdmissionGate gate) {
        limit.drive(gate);
        limitsByWorkload.put(gate.workload(), limit);
    }

    /** The adaptive limit of {@code workload}; empty for a workload with a fixed B. */
    public Optional<AdaptiveLimit> find(String workload) {
        return Optional.ofNullable(limitsByWorkload.get(workload));
    }

    /**
     * The most operations {@code template}'s gate may ever run at once: the ceiling of an adaptive limit, else B
     * as it is now. What the budget check adds up, so that its arithmetic holds whatever the limit learns.
     */
    public int mostConcurrent(BulkheadTemplate template) {
        return find(template.workload()).map(limit -> limit.config().maxConcurrent())
                .orElseGet(() -> template.gate().config().maxConcurrent());
    }

    /** Logs one burst of changes at INFO. */
    static void log(LimitChange change) {
        if (logger.isInfoEnabled()) {
            LimitSnapshot state = change.state();
            logger.info("db-bulkhead workload '" + change.workload() + "': adaptive limit " + change.from() + " -> "
                    + change.to() + " over " + Duration.ofNanos(change.tookNanos()).toMillis() + " ms (median hold"
                    + " time " + millis(state.observedNanos()) + " ms against " + millis(state.noLoadNanos())
                    + " ms without load)");
        }
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
    }
}
