package dev.dbbulkhead.gate;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * Tasks run within a binding to whichever thread runs them — a {@link RequestDeadline}, an {@link OperationClass} —
 * for the bindings whose scope restores, when closed, what was bound before: one place for the wrapping, so that each
 * binding only says how it binds.
 */
final class ScopedTasks {

    private ScopedTasks() {
    }

    /** {@code task}, run between {@code bind} (which returns how to undo it) and the undoing. */
    static Runnable wrap(Supplier<Runnable> bind, Runnable task) {
        Objects.requireNonNull(task, "task");
        return () -> {
            Runnable unbind = bind.get();
            try {
                task.run();
            } finally {
                unbind.run();
            }
        };
    }

    /** {@code task}, run between {@code bind} (which returns how to undo it) and the undoing. */
    static <T> Callable<T> wrap(Supplier<Runnable> bind, Callable<T> task) {
        Objects.requireNonNull(task, "task");
        return () -> {
            Runnable unbind = bind.get();
            try {
                return task.call();
            } finally {
                unbind.run();
            }
        };
    }
}
