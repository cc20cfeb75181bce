package dev.dbbulkhead;

import java.util.Objects;

/**
 * A bulkhead was entered in a way that would break its accounting. Thrown before any permit or
 * connection is taken; it points at a programming error, so it keeps its stack trace.
 */
public class BulkheadMisuseException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String workload;
    private final MisuseKind kind;

    /**
     * @param workload the workload whose bulkhead was entered
     * @param kind     what was wrong
     * @param message  what happened and how to fix it
     */
    public BulkheadMisuseException(String workload, MisuseKind kind, String message) {
        super(message);
        this.workload = Objects.requireNonNull(workload, "workload");
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    /** The workload whose bulkhead was entered. */
    public String workload() {
        return workload;
    }

    /** What was wrong with the entry. */
    public MisuseKind kind() {
        return kind;
    }
}
