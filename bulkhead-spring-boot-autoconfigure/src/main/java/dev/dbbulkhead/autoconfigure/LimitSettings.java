package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.autoconfigure.BulkheadProperties.DatabaseLimitMode;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.LimitMode;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.GateRanges;
import dev.dbbulkhead.limit.AdaptiveLimitConfig;
import dev.dbbulkhead.saturation.SaturationLimits;
import dev.dbbulkhead.saturation.support.DatabaseLimits;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What moves a workload's B besides the configuration: the adaptive limit and the database's saturation, each
 * bounded by {@code limit.min-concurrent} and {@code limit.max-concurrent} checked against B.
 */
final class LimitSettings {

    /** How B reads in the messages: the key that sets it. */
    private static final String B = WorkloadKeys.MAX_CONCURRENT.name() + " (B)";

    private LimitSettings() {
    }

    /** The bounds of an adaptive B, each checked against B (where it starts) and Q; null for a fixed B. */
    static @Nullable AdaptiveLimitConfig adaptive(WorkloadResolver resolver, LimitMode mode, GateConfig gate) {
        if (mode != LimitMode.ADAPTIVE) {
            return null;
        }
        int startConcurrent = gate.maxConcurrent();
        AdaptiveLimitConfig.Builder limit = AdaptiveLimitConfig.builder();
        resolver.get(WorkloadKeys.LIMIT_MIN_CONCURRENT).validate(floor -> {
            if (floor > startConcurrent) {
                throw new IllegalArgumentException("must be between " + GateRanges.MIN_MAX_CONCURRENT + " and " + B
                        + " = " + startConcurrent + ", where the adaptive limit starts");
            }
            return limit.minConcurrent(floor);
        });
        resolver.get(WorkloadKeys.LIMIT_MAX_CONCURRENT, startConcurrent).validate(ceiling -> {
            if (ceiling < startConcurrent) {
                throw new IllegalArgumentException("must be at least " + B + " = " + startConcurrent
                        + ", where the adaptive limit starts");
            }
            GateRanges.requireAdmittedFits(ceiling, gate.maxQueued());
            return limit.maxConcurrent(ceiling);
        });
        return limit.build();
    }

    /**
     * How the database's saturation limits the workload: off, steered or recommended, in which order it is lowered,
     * its floor and the most it may be raised to or recommended.
     *
     * @param workload      the workload
     * @param mode          {@code limit.database} as written
     * @param maxConcurrent B as written
     * @throws BulkheadConfigurationException for a floor outside 1..B, a ceiling below B, or a limit without the
     *                                        database's signals to follow
     */
    static Optional<DatabaseLimits.Setting> database(WorkloadResolver resolver, String workload,
                                                      Setting<DatabaseLimitMode> mode, int maxConcurrent,
                                                      BulkheadProperties properties) {
        if (mode.value() == DatabaseLimitMode.OFF) {
            return Optional.empty();
        }
        mode.validate(value -> {
            if (!properties.getDatabase().getSignals().isEnabled()) {
                throw new IllegalArgumentException("needs " + BulkheadProperties.PREFIX
                        + ".database.signals.enabled=true: the limit follows the signals the sampler reads");
            }
            return value;
        });
        int floor = resolver.get(WorkloadKeys.LIMIT_MIN_CONCURRENT, GateRanges.MIN_MAX_CONCURRENT).validate(value -> {
            if (value < GateRanges.MIN_MAX_CONCURRENT || value > maxConcurrent) {
                throw new IllegalArgumentException("must be between " + GateRanges.MIN_MAX_CONCURRENT + " and " + B
                        + " = " + maxConcurrent + ": the database's limit lowers B no further");
            }
            return value;
        });
        int ceiling = resolver.get(WorkloadKeys.LIMIT_MAX_CONCURRENT, maxConcurrent).validate(value -> {
            if (value < maxConcurrent) {
                throw new IllegalArgumentException("must be at least " + B + " = " + maxConcurrent);
            }
            return GateRanges.requireMaxConcurrent(value);
        });
        return Optional.of(new DatabaseLimits.Setting(workload,
                mode.value() == DatabaseLimitMode.STEER ? SaturationLimits.Mode.STEER : SaturationLimits.Mode.RECOMMEND,
                resolver.get(WorkloadKeys.LIMIT_CRITICALITY).value(), floor, ceiling));
    }

    /**
     * The key that lets B move by itself — {@code limit.mode=adaptive} or {@code limit.database=steer} — as
     * written; empty when only the configuration, a resize and a fleet share move B.
     */
    static Optional<Setting<String>> selfResizing(Setting<LimitMode> mode, Setting<DatabaseLimitMode> database) {
        if (mode.value() == LimitMode.ADAPTIVE) {
            return Optional.of(new Setting<>(mode.property(), "adaptive"));
        }
        return database.value() == DatabaseLimitMode.STEER
                ? Optional.of(new Setting<>(database.property(), "steer")) : Optional.empty();
    }
}
