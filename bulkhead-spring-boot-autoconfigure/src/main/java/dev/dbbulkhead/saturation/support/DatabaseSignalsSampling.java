package dev.dbbulkhead.saturation.support;

import dev.dbbulkhead.saturation.DatabaseSampler;
import dev.dbbulkhead.saturation.SignalAccess;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * The database's sampler as a lifecycle, on a daemon thread of its own ({@code db-bulkhead-signals}): it starts with
 * the application and stops, closing its session, when the application stops. On its thread, before the first sample,
 * it judges what its role can see ({@link SignalAccess}) and writes a finding when that is less than the whole
 * server; on a database that is not PostgreSQL it writes so and never samples. Start-up never waits for the
 * database.
 */
public final class DatabaseSignalsSampling implements SmartLifecycle, AutoCloseable {

    private final DatabaseSampler sampler;
    private final DataSource sessions;
    private final System.Logger log;
    private final ScheduledThreadPoolExecutor scheduler;
    /** Orders the sampler's start after the access is judged against the application's stop; held for moments. */
    private final ReentrantLock lifecycle = new ReentrantLock();
    private final @Nullable DatabaseLimits limits;
    private volatile SignalAccess access = SignalAccess.WHOLE_SERVER;
    private volatile boolean running;

    /**
     * @param sampler  the sampler, not yet started
     * @param sessions where the sampler's session comes from, asked once more for the judgement of access
     * @param log      where findings are written
     * @param limits   the workloads whose B follows the signals, fed each sample; null for none
     */
    public DatabaseSignalsSampling(DatabaseSampler sampler, DataSource sessions, System.Logger log,
                                   @Nullable DatabaseLimits limits) {
        this.limits = limits;
        if (limits != null && limits.any()) {
            sampler.onEachSample(limits.limits()::onSample);
        }
        this.sampler = sampler;
        this.sessions = sessions;
        this.log = log;
        this.scheduler = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "db-bulkhead-signals");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
    }

    @Override
    public void start() {
        running = true;
        scheduler.execute(this::judgeAccessThenSample);
    }

    private void judgeAccessThenSample() {
        try (Connection connection = sessions.getConnection()) {
            access = SignalAccess.of(connection);
        } catch (SQLException | RuntimeException unreadable) {
            if (!running) {
                // Stopped while judging (the stop interrupts this thread): nothing to report, nothing to start.
                return;
            }
            // The sampler's own failures say the rest; the access is judged again by nothing, and assumed whole.
            log.log(Level.WARNING, "Could not judge what the database's statistics show this role; sampling anyway",
                    unreadable);
        }
        switch (access) {
            case NOT_POSTGRESQL -> log.log(Level.WARNING, "The database is not PostgreSQL: its signals are not"
                    + " sampled, and limits follow latency alone");
            case OWN_ROLE_ONLY -> log.log(Level.WARNING, "The database's signals show only the sessions of this"
                    + " application's role: other applications' load is not seen. Grant it pg_read_all_stats (or"
                    + " pg_monitor) to see the whole server");
            case WHOLE_SERVER -> {
            }
        }
        // Under the lock stop() takes to clear running: the sampler starts before the stop, which then closes it, or
        // not at all; never on a sampler the stop already closed.
        lifecycle.lock();
        try {
            if (access != SignalAccess.NOT_POSTGRESQL && running) {
                sampler.start(scheduler);
            }
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public void stop() {
        lifecycle.lock();
        try {
            running = false;
        } finally {
            lifecycle.unlock();
        }
        try {
            sampler.close();
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * Stops sampling, if it started, and closes the sampler's connections: also when the application never started,
     * so that a failed start-up leaves no session open. Idempotent.
     */
    @Override
    public void close() throws Exception {
        stop();
        if (sessions instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The sampler, for the meters and the endpoint. */
    public DatabaseSampler sampler() {
        return sampler;
    }

    /** The workloads whose B follows the signals; empty when none does. */
    public Optional<DatabaseLimits> limits() {
        return Optional.ofNullable(limits).filter(DatabaseLimits::any);
    }

    /** What the sampler's role can see; {@link SignalAccess#WHOLE_SERVER} until judged. */
    public SignalAccess access() {
        return access;
    }
}
