package dev.dbbulkhead.gate;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The workload of the unit of work the current thread serves — a request, a task — as classified where the unit
 * begins (by an HTTP rule, say): read when the unit takes a connection outside every admitted operation, so that the
 * borrow is admitted by that workload's gate. Bound by whatever knows where the unit begins and ends; a thread the
 * unit starts does not carry it, and an annotated operation's own workload comes before it.
 */
public final class WorkloadBinding {

    private WorkloadBinding() {
    }

    /**
     * Binds {@code workload} to the current thread until the returned scope is closed, on this thread; closing it
     * restores what was bound before.
     */
    public static Scope bind(String workload) {
        Objects.requireNonNull(workload, "workload");
        ThreadRecord record = ThreadRecord.current();
        Scope scope = new Scope(record, record.boundWorkload());
        record.boundWorkload(workload);
        return scope;
    }

    /** The workload bound to the current thread, or {@code null}: one thread-local read. */
    public static @Nullable String current() {
        return ThreadRecord.current().boundWorkload();
    }

    /** The span of a {@link #bind}: closing it, on the thread that bound, restores what was bound before. */
    public static final class Scope extends BindingScope {

        private final ThreadRecord record;
        private final @Nullable String previous;

        private Scope(ThreadRecord record, @Nullable String previous) {
            this.record = record;
            this.previous = previous;
        }

        @Override
        String binding() {
            return "A unit of work's workload";
        }

        @Override
        void restore() {
            record.boundWorkload(previous);
        }
    }
}
