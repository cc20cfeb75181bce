package dev.dbbulkhead.gate;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * When the request a thread serves must be answered: one deadline from the request's arrival to its last database
 * operation, so that a request of several operations gives each what is left rather than the whole budget again.
 * Bound to a thread for a scope ({@link #bind()}); every admission on that thread — {@link AdmissionGate#acquire()}
 * and {@link AdmissionGate#acquireWithin} — then waits no longer than what is left, is refused at once when nothing
 * is, and hands out a permit that knows the time left for its transaction. Immutable.
 *
 * <p>A deadline stays with its thread: a thread started inside the scope, or a task handed to an executor, does not
 * carry it. Work the request hands to another thread carries it when wrapped ({@link #wrap(Runnable)},
 * {@link #wrap(Callable)}), or when that thread binds it itself.
 */
public final class RequestDeadline {

    private final long deadlineNanos;

    private RequestDeadline(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    /**
     * A deadline {@code budget} from now; a zero or negative budget is a deadline already spent (a caller that gave
     * up before the request arrived), which refuses every admission.
     *
     * @throws IllegalArgumentException for a budget too long to count in nanoseconds (past 292 years)
     */
    public static RequestDeadline in(Duration budget) {
        Objects.requireNonNull(budget, "budget");
        long budgetNanos;
        try {
            budgetNanos = budget.toNanos();
        } catch (ArithmeticException tooLong) {
            throw new IllegalArgumentException("A request deadline must fit in a long of nanoseconds, was " + budget);
        }
        return new RequestDeadline(System.nanoTime() + budgetNanos);
    }

    /** The deadline bound to the current thread, if any. */
    public static Optional<RequestDeadline> current() {
        ThreadRecord record = ThreadRecord.current();
        return record.hasRequestDeadline() ? Optional.of(new RequestDeadline(record.requestDeadlineNanos()))
                : Optional.empty();
    }

    /** What is left, in nanoseconds; zero or negative once spent. */
    public long remainingNanos() {
        return deadlineNanos - System.nanoTime();
    }

    /** What is left; zero or negative once spent. */
    public Duration remaining() {
        return Duration.ofNanos(remainingNanos());
    }

    /** Whether nothing is left. */
    public boolean isSpent() {
        return remainingNanos() <= 0;
    }

    /**
     * Binds this deadline to the current thread until the returned scope is closed, by this thread. Inside a scope
     * already bound, the earlier of the two deadlines holds: a part of a request never gets more time than the
     * request. Closing the scope restores what was bound before it.
     */
    public Scope bind() {
        ThreadRecord record = ThreadRecord.current();
        Scope scope = new Scope(record, record.hasRequestDeadline(), record.requestDeadlineNanos());
        if (!record.hasRequestDeadline() || deadlineNanos - record.requestDeadlineNanos() < 0) {
            record.requestDeadline(true, deadlineNanos);
        }
        return scope;
    }

    /** {@code task}, run within this deadline on whichever thread runs it. */
    public Runnable wrap(Runnable task) {
        return ScopedTasks.wrap(() -> bind()::close, task);
    }

    /** {@code task}, run within this deadline on whichever thread runs it. */
    public <T> Callable<T> wrap(Callable<T> task) {
        return ScopedTasks.wrap(() -> bind()::close, task);
    }

    @Override
    public String toString() {
        return "RequestDeadline[" + remainingNanos() / 1_000_000 + " ms left]";
    }

    /** The span of a {@link #bind()}: closing it, on the thread that bound it, restores what was bound before. */
    public static final class Scope extends BindingScope {

        private final ThreadRecord record;
        private final boolean hadDeadline;
        private final long previousNanos;

        private Scope(ThreadRecord record, boolean hadDeadline, long previousNanos) {
            this.record = record;
            this.hadDeadline = hadDeadline;
            this.previousNanos = previousNanos;
        }

        @Override
        String binding() {
            return "A request deadline";
        }

        @Override
        void restore() {
            record.requestDeadline(hadDeadline, previousNanos);
        }
    }
}
