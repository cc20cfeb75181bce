package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.autoconfigure.BulkheadProperties.Workload;
import dev.dbbulkhead.autoconfigure.WorkloadKeys.Key;
import org.jspecify.annotations.Nullable;

/**
 * Picks each key of a workload from the workload, else from the defaults, else the built-in value, with the
 * property it came from.
 *
 * @param workload    the workload's name; null for the defaults alone
 * @param own         the workload's own keys
 * @param defaults    the keys under {@code db.bulkhead.defaults}
 * @param unitsOfWork whether {@code db.bulkhead.work.default-workload} is set: connections are admitted where they
 *                    are taken, so requests and jobs are the units admitted
 */
record WorkloadResolver(@Nullable String workload, Workload own, Workload defaults, boolean unitsOfWork) {

    /** Reads the keys of workload {@code name}, falling back to the defaults; the defaults alone for a null name. */
    static WorkloadResolver of(@Nullable String name, BulkheadProperties properties) {
        boolean unitsOfWork = properties.getWork().getDefaultWorkload() != null;
        Workload own = name == null ? new Workload() : properties.getWorkloads().getOrDefault(name, new Workload());
        return new WorkloadResolver(name, own, properties.getDefaults(), unitsOfWork);
    }

    /** The value of {@code key} and the property that set it; its built-in value, under the defaults, when none. */
    <T extends @Nullable Object> Setting<T> get(Key<T> key) {
        return get(key, key.builtIn());
    }

    /** As {@link #get(Key)}, for a key whose built-in value depends on the workload's others. */
    <T extends @Nullable Object> Setting<T> get(Key<T> key, T builtIn) {
        T value = key.read().apply(own);
        if (value != null) {
            return new Setting<>(key.under(workload), value, builtIn);
        }
        T inherited = key.read().apply(defaults);
        return new Setting<>(key.under(null), inherited != null ? inherited : builtIn, builtIn);
    }

    /** Whether {@code setting} is the workload's own, rather than inherited or built in. */
    boolean setsItself(Setting<?> setting) {
        return setting.property().startsWith(WorkloadKeys.prefixOf(workload));
    }
}
