package dev.dbbulkhead.transaction;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Every workload's {@link BulkheadTemplate}, by workload name. Immutable and thread-safe. */
public final class BulkheadRegistry {

    private final Map<String, BulkheadTemplate> templates;

    /**
     * @param templates one template per workload
     * @throws IllegalArgumentException when two templates share a workload name
     */
    public BulkheadRegistry(Collection<BulkheadTemplate> templates) {
        Map<String, BulkheadTemplate> byName = new LinkedHashMap<>();
        for (BulkheadTemplate template : templates) {
            if (byName.putIfAbsent(template.workload(), template) != null) {
                throw new IllegalArgumentException("Two bulkheads are named '" + template.workload() + "'");
            }
        }
        this.templates = Collections.unmodifiableMap(byName);
    }

    /**
     * The template of workload {@code name}.
     *
     * @throws IllegalArgumentException when no such workload exists; the message lists the configured ones
     */
    public BulkheadTemplate template(String name) {
        BulkheadTemplate template = templates.get(name);
        if (template == null) {
            throw new IllegalArgumentException("No bulkhead workload named '" + name + "'; configured: " + names());
        }
        return template;
    }

    /** The template of workload {@code name}, if there is one. */
    public Optional<BulkheadTemplate> find(String name) {
        return Optional.ofNullable(templates.get(name));
    }

    /** The workload names, in configuration order. */
    public Set<String> names() {
        return templates.keySet();
    }

    @Override
    public String toString() {
        return "BulkheadRegistry" + names();
    }
}
