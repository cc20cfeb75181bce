package dev.dbbulkhead.fleet;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** Records the periodic tasks instead of running them: the test beats by hand. */
final class ManualScheduler extends ScheduledThreadPoolExecutor {

    int cancelled;
    /** The first delay of each periodic task, in nanoseconds, in the order they were scheduled. */
    final List<Long> initialDelaysNanos = new ArrayList<>();

    ManualScheduler() {
        super(1);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                     TimeUnit unit) {
        initialDelaysNanos.add(unit.toNanos(initialDelay));
        return new ScheduledFuture<Object>() {
            @Override
            public long getDelay(TimeUnit timeUnit) {
                return Long.MAX_VALUE;
            }

            @Override
            public int compareTo(Delayed other) {
                return 0;
            }

            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                cancelled++;
                return true;
            }

            @Override
            public boolean isCancelled() {
                return false;
            }

            @Override
            public boolean isDone() {
                return false;
            }

            @Override
            public Object get() {
                return null;
            }

            @Override
            public Object get(long timeout, TimeUnit timeUnit) {
                return null;
            }
        };
    }
}
