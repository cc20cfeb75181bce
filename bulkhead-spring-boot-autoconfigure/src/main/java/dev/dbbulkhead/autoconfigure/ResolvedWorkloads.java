package dev.dbbulkhead.autoconfigure;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The settings of the defaults and of every configured workload, each resolved once, when the auto-configuration
 * starts: one value per workload that the template factory and the start-up checks share. Every mistake among them
 * fails start-up in one report; the defaults are resolved alone too, so that bad defaults fail start-up even when no
 * workload uses them.
 */
final class ResolvedWorkloads {

    private final BulkheadProperties properties;
    private final WorkloadSettings defaults;
    /** In configuration order, so that reports list workloads as the user wrote them. */
    private final Map<String, WorkloadSettings> configured;
    /** Workloads named where no key configures them (an application's own template), resolved when first asked. */
    private final Map<String, WorkloadSettings> unconfigured = new ConcurrentHashMap<>();

    /**
     * Resolves the defaults and every workload of {@code properties}.
     *
     * @throws BulkheadConfigurationException naming each property refused, its value and its range
     */
    ResolvedWorkloads(BulkheadProperties properties) {
        this.properties = properties;
        AtomicReference<WorkloadSettings> defaults = new AtomicReference<>();
        Map<String, WorkloadSettings> configured = new LinkedHashMap<>();
        SettingMistakes.requireNone(resolveAll(properties, defaults, configured));
        this.defaults = Objects.requireNonNull(defaults.get(), "resolved, since nothing was refused");
        this.configured = Collections.unmodifiableMap(configured);
    }

    /** Every value out of its range in the defaults and the configured workloads, each once. */
    static List<BulkheadConfigurationException> mistakes(BulkheadProperties properties) {
        return resolveAll(properties, new AtomicReference<>(), new LinkedHashMap<>());
    }

    /** Resolves each workload on to its last setting, noting every refusal rather than stopping at the first. */
    private static List<BulkheadConfigurationException> resolveAll(BulkheadProperties properties,
            AtomicReference<WorkloadSettings> defaults, Map<String, WorkloadSettings> configured) {
        List<Runnable> resolutions = new ArrayList<>();
        resolutions.add(() -> defaults.set(WorkloadSettings.ofDefaults(properties)));
        for (String name : properties.getWorkloads().keySet()) {
            resolutions.add(() -> configured.put(name, WorkloadSettings.of(name, properties)));
        }
        return SettingMistakes.collect(resolutions);
    }

    /** The settings of the defaults alone: those of every workload that sets no key of its own. */
    WorkloadSettings defaults() {
        return defaults;
    }

    /** The configured workloads, in configuration order. */
    Set<String> names() {
        return configured.keySet();
    }

    /** The settings of workload {@code workload}: a configured one's, or the defaults' under its name. */
    WorkloadSettings settings(String workload) {
        WorkloadSettings settings = configured.get(workload);
        return settings != null ? settings
                : unconfigured.computeIfAbsent(workload, name -> WorkloadSettings.of(name, properties));
    }

    /** The settings of the configured workloads that cannot act as written (see {@link SettingsThatCannotAct}). */
    List<String> settingsThatCannotAct() {
        List<String> findings = new ArrayList<>();
        configured.forEach((name, settings) -> findings.addAll(SettingsThatCannotAct.of(name, settings)));
        return findings;
    }
}
