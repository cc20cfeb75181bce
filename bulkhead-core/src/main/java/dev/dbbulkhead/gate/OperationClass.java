package dev.dbbulkhead.gate;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * What the operations a thread asks for are, to a workload with {@link AdmissionRules}: their {@link Criticality} and
 * their key (the tenant they serve), whose fair share of the workload they count against. Bound to a thread for a
 * scope ({@link #bind()}), as a {@link RequestDeadline} is, so that the code that knows the request (a filter, an
 * annotation) tells the gate without the work passing it through every call. Immutable.
 *
 * <p>A workload without admission rules never reads it: its admissions are as they were. Operations of a thread with
 * nothing bound are {@link Criticality#DEFAULT} and have no key (no share holds them). Like a deadline, the class
 * stays with its thread: a thread started inside the scope, or a task handed to an executor, does not carry it
 * unless wrapped ({@link #wrap(Runnable)}, {@link #wrap(Callable)}).
 */
public final class OperationClass {

    /** The class of a thread with nothing bound. */
    public static final OperationClass UNCLASSIFIED = new OperationClass(Criticality.DEFAULT, null);

    private final Criticality criticality;
    private final @Nullable String key;

    private OperationClass(Criticality criticality, @Nullable String key) {
        this.criticality = criticality;
        this.key = key;
    }

    /** Operations of {@code criticality}, with no key. */
    public static OperationClass of(Criticality criticality) {
        return new OperationClass(Objects.requireNonNull(criticality, "criticality"), null);
    }

    /**
     * Operations of {@code criticality} for {@code key}. Any string will do — the gate keeps a fixed-size table, not
     * the keys — but keys that mean one tenant should be equal strings.
     */
    public static OperationClass of(Criticality criticality, String key) {
        return new OperationClass(Objects.requireNonNull(criticality, "criticality"),
                Objects.requireNonNull(key, "key"));
    }

    /** The class bound to the current thread, if any. */
    public static Optional<OperationClass> current() {
        return Optional.ofNullable(AdmissionGate.currentThreadRecord().operationClass());
    }

    /** The criticality. */
    public Criticality criticality() {
        return criticality;
    }

    /** The key, if any. */
    public Optional<String> key() {
        return Optional.ofNullable(key);
    }

    /** The key, or {@code null}: for the gate, which must not allocate an {@link Optional} per admission. */
    @Nullable String keyOrNull() {
        return key;
    }

    /**
     * Binds this class to the current thread until the returned scope is closed, by this thread; inside a scope
     * already bound it replaces the outer class, which closing the scope restores.
     */
    public Scope bind() {
        HeldGate record = AdmissionGate.currentThreadRecord();
        Scope scope = new Scope(record, record.operationClass());
        record.operationClass(this);
        return scope;
    }

    /** {@code task}, run as this class on whichever thread runs it. */
    public Runnable wrap(Runnable task) {
        return ScopedTasks.wrap(() -> bind()::close, task);
    }

    /** {@code task}, run as this class on whichever thread runs it. */
    public <T> Callable<T> wrap(Callable<T> task) {
        return ScopedTasks.wrap(() -> bind()::close, task);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof OperationClass that && criticality == that.criticality && Objects.equals(key, that.key);
    }

    @Override
    public int hashCode() {
        return Objects.hash(criticality, key);
    }

    @Override
    public String toString() {
        return "OperationClass[" + criticality + (key == null ? "" : ", key=" + key) + "]";
    }

    /** The span of a {@link #bind()}: closing it, on the thread that bound it, restores what was bound before. */
    public static final class Scope extends BindingScope {

        private final HeldGate record;
        private final @Nullable OperationClass previous;

        private Scope(HeldGate record, @Nullable OperationClass previous) {
            this.record = record;
            this.previous = previous;
        }

        @Override
        String binding() {
            return "An operation class";
        }

        @Override
        void restore() {
            record.operationClass(previous);
        }
    }
}
