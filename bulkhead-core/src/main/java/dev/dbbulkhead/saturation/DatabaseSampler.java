package dev.dbbulkhead.saturation;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Samples one database's signals at an interval, on a session of its own, and keeps the last sample for readers.
 *
 * <p>One per database, not per workload or operation: its cost is one short query an interval, whatever the load.
 * The session comes from {@code sessions}, which should open connections of their own rather than lend one of the
 * application's pool: a sampler that waited for a pooled connection would be slowest exactly when the database
 * saturates. It is opened at the first sample, kept between samples, and closed and opened again after a failure.
 *
 * <p>Readers never wait for a sample: {@link #latest()} and {@link #current()} read one volatile field. A sample that
 * fails leaves the last one in place, where it ages until {@link #current()} no longer returns it; a sample that hangs
 * is ended by the server after the query timeout, and by this side after twice it when the server stops answering.
 * Thread-safe; samples never overlap.
 */
public final class DatabaseSampler implements AutoCloseable {

    private final DataSource sessions;
    private final SignalSource source;
    private final SamplerSettings settings;
    private final System.Logger log;
    private final LongSupplier nanoTime;
    /** Held by the sample being taken, so that samples never overlap; {@link #sampleOnce()} never waits for it. */
    private final ReentrantLock sampling = new ReentrantLock();
    /** The sampler's own session, guarded by {@link #sampling}; null until opened and after a failure. */
    private @Nullable Connection session;
    /** Samples failed since the last that succeeded; written under {@link #sampling}. */
    private volatile int failuresInARow;
    private volatile @Nullable DatabaseSignals latest;
    private volatile @Nullable ScheduledFuture<?> schedule;
    private volatile boolean closed;
    private final List<Consumer<DatabaseSignals>> listeners = new CopyOnWriteArrayList<>();

    /**
     * A sampler that has taken no sample yet.
     *
     * @param sessions opens the sampler's session; best one that is not the application's pool
     * @param source   reads a sample on that session
     * @param settings the interval, the query timeout and the server's processors
     * @param log      where failures (a warning) and recoveries (info) are written, once per outage: an application
     *                 with a logging framework of its own passes a logger that writes there, so that the lines land in
     *                 its log; {@code System.getLogger(DatabaseSampler.class.getName())} for the rest
     */
    public DatabaseSampler(DataSource sessions, SignalSource source, SamplerSettings settings, System.Logger log) {
        this(sessions, source, settings, log, System::nanoTime);
    }

    DatabaseSampler(DataSource sessions, SignalSource source, SamplerSettings settings, System.Logger log,
                    LongSupplier nanoTime) {
        this.sessions = Objects.requireNonNull(sessions, "sessions");
        this.source = Objects.requireNonNull(source, "source");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.log = Objects.requireNonNull(log, "log");
        this.nanoTime = nanoTime;
    }

    /**
     * Samples on {@code scheduler} from now on, one sample an interval after the last ended, until {@link #close()}.
     *
     * @throws IllegalStateException when already started or closed
     */
    public void start(ScheduledExecutorService scheduler) {
        if (closed || schedule != null) {
            throw new IllegalStateException("The sampler is " + (closed ? "closed" : "already started"));
        }
        long intervalNanos = settings.interval().toNanos();
        schedule = scheduler.scheduleWithFixedDelay(this::sampleOnce, 0L, intervalNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Takes one sample now, on the calling thread, unless one is being taken: then returns false at once.
     *
     * @return whether a sample was read and is now {@link #latest()}; false when it failed (the last sample stays),
     *         another was being taken, or the sampler is closed. Never throws; leaves the interrupt flag as it was.
     */
    public boolean sampleOnce() {
        if (!sampling.tryLock()) {
            return false;
        }
        try {
            if (closed) {
                return false;
            }
            Connection open = session != null ? session : open();
            DatabaseSignals read = source.read(open);
            latest = read;
            if (failuresInARow > 0) {
                log.log(Level.INFO, "The database's signals are read again, after " + failuresInARow
                        + " failed samples");
                failuresInARow = 0;
            }
            tell(read);
            return true;
        } catch (SQLException | RuntimeException failure) {
            discardSession();
            failuresInARow++;
            if (failuresInARow == 1) {
                log.log(Level.WARNING, "Could not read the database's signals; until a sample succeeds, limits that"
                        + " follow them keep their last values", failure);
            }
            return false;
        } finally {
            sampling.unlock();
        }
    }

    /**
     * Hands every sample that succeeds from now on to {@code listener}, on the sampling thread, before the next is
     * taken. A listener must not block; one that throws is reported and the others still hear of the sample.
     */
    public void onEachSample(Consumer<DatabaseSignals> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    private void tell(DatabaseSignals read) {
        for (Consumer<DatabaseSignals> listener : listeners) {
            try {
                listener.accept(read);
            } catch (RuntimeException failure) {
                log.log(Level.WARNING, "A listener of the database's signals failed on a sample", failure);
            }
        }
    }

    /** The last sample that succeeded, however old; empty before the first. */
    public Optional<DatabaseSignals> latest() {
        return Optional.ofNullable(latest);
    }

    /** The last sample if it is current — taken within {@link SamplerSettings#freshFor()} — else empty. */
    public Optional<DatabaseSignals> current() {
        DatabaseSignals last = latest;
        if (last == null || nanoTime.getAsLong() - last.sampledAtNanos() > settings.freshFor().toNanos()) {
            return Optional.empty();
        }
        return Optional.of(last);
    }

    /** Samples that failed since the last that succeeded. */
    public int failuresInARow() {
        return failuresInARow;
    }

    /** How this sampler samples. */
    public SamplerSettings settings() {
        return settings;
    }

    /**
     * Stops sampling and closes the session, waiting for a sample being taken to end (at most twice the query
     * timeout). {@link #latest()} keeps the last sample. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        ScheduledFuture<?> scheduled = schedule;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
        sampling.lock();
        try {
            discardSession();
        } finally {
            sampling.unlock();
        }
    }

    private Connection open() throws SQLException {
        Connection opened = sessions.getConnection();
        try {
            opened.setAutoCommit(true);
            opened.setNetworkTimeout(Runnable::run, Math.toIntExact(settings.queryTimeout().toMillis() * 2));
            source.prepare(opened, settings.queryTimeout());
        } catch (SQLException | RuntimeException failure) {
            closeQuietly(opened, failure);
            throw failure;
        }
        session = opened;
        return opened;
    }

    private void discardSession() {
        Connection open = session;
        session = null;
        if (open != null) {
            closeQuietly(open, null);
        }
    }

    private static void closeQuietly(Connection connection, @Nullable Throwable cause) {
        try {
            connection.close();
        } catch (SQLException closing) {
            // The session is given up either way; the failure that made us close it is the one worth reporting.
            if (cause != null) {
                cause.addSuppressed(closing);
            }
        }
    }
}
