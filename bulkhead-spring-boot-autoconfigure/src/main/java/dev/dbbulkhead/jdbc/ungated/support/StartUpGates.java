package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The workloads' gates as admission where connections are taken asks for them: none until {@link #open} — while the
 * application's beans are made, its borrows are start-up work, only watched — then each workload's. Asking for a gate
 * earlier would make the workloads' templates, whose transaction manager may be the very bean that borrows (a JPA
 * entity manager factory that looks at the database while it is made).
 */
public final class StartUpGates implements Function<String, @Nullable AdmissionGate> {

    private volatile @Nullable BulkheadRegistry registry;

    /** Opens the gates: from now on each workload's gate is its template's. */
    public void open(BulkheadRegistry workloads) {
        registry = workloads;
    }

    @Override
    public @Nullable AdmissionGate apply(String workload) {
        BulkheadRegistry workloads = registry;
        return workloads == null ? null : workloads.template(workload).gate();
    }
}
