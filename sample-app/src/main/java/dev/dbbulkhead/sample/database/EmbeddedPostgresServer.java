package dev.dbbulkhead.sample.database;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The embedded PostgreSQL as a bean of the application, which every data source depends on: the context destroys it
 * after them, so the server stops once the application has shut down — the web server and the gates drained, the
 * connection pool closed — and never under a request still in flight.
 */
final class EmbeddedPostgresServer implements DisposableBean {

    static final String BEAN_NAME = "embeddedPostgresServer";

    /** The name of the session that waits for the others to end before the server stops. */
    static final String SHUTDOWN_SESSION = "embedded postgres shutdown";
    /** The longest the server waits for the sessions the application closed to leave it before it stops. */
    private static final Duration SESSIONS_END_WAIT = Duration.ofSeconds(5);

    private final EmbeddedPostgres postgres;
    private final AtomicBoolean stopped = new AtomicBoolean();

    EmbeddedPostgresServer(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    /**
     * Registers this server as a singleton of {@code context}, destroyed with it, after every data source: each is
     * registered as depending on it. A singleton given as it is, not a bean definition, so that ahead-of-time
     * processing has nothing to generate for it.
     */
    void stopAfterTheDataSources(ConfigurableApplicationContext context) {
        ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
        beanFactory.registerSingleton(BEAN_NAME, this);
        if (!(beanFactory instanceof DefaultSingletonBeanRegistry singletons)) {
            throw new IllegalStateException("The embedded PostgreSQL needs a bean factory that destroys singletons,"
                    + " not " + beanFactory.getClass().getName());
        }
        singletons.registerDisposableBean(BEAN_NAME, this);
        context.addBeanFactoryPostProcessor(factory -> {
            for (String dataSource : factory.getBeanNamesForType(DataSource.class, true, false)) {
                factory.registerDependentBean(BEAN_NAME, dataSource);
            }
        });
    }

    /**
     * Stops the server, once, after the sessions the application closed have left it: a pool closes its connections
     * when the context closes it, but each session's backend leaves the server a moment after its client hung up, and
     * a fast shutdown within that moment ends it with "terminating connection due to administrator command". Waits at
     * most {@link #SESSIONS_END_WAIT} for them, then stops the server whatever is left.
     */
    @Override
    public void destroy() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        awaitSessionsEnded();
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not stop the embedded PostgreSQL", e);
        }
    }

    /**
     * Waits for every other client session on the server to end, from a session of its own named
     * {@value #SHUTDOWN_SESSION}, then for that session's own backend process to exit.
     */
    private void awaitSessionsEnded() {
        long deadline = System.nanoTime() + SESSIONS_END_WAIT.toNanos();
        long own;
        try (Connection session = postgres.getPostgresDatabase().getConnection();
             Statement statement = session.createStatement()) {
            statement.execute("SET application_name = '" + SHUTDOWN_SESSION + "'");
            try (ResultSet pid = statement.executeQuery("SELECT pg_backend_pid()")) {
                pid.next();
                own = pid.getLong(1);
            }
            // Each look is one round trip of this session: the others' backends leave between them.
            boolean looking = true;
            while (looking && othersConnected(statement)) {
                looking = waitedBriefly(deadline);
            }
        } catch (SQLException serverAlreadyGone) {
            return;
        }
        // This session's backend leaves the server a moment after the session closed, as the others' did.
        boolean looking = true;
        while (looking && ProcessHandle.of(own).map(ProcessHandle::isAlive).orElse(false)) {
            looking = waitedBriefly(deadline);
        }
    }

    private static boolean othersConnected(Statement statement) throws SQLException {
        try (ResultSet others = statement.executeQuery("SELECT count(*) FROM pg_stat_activity"
                + " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")) {
            others.next();
            return others.getLong(1) > 0;
        }
    }

    /**
     * Parks a millisecond unless {@code deadline} (of {@link System#nanoTime()}) has passed or the thread is
     * interrupted, which stays set.
     *
     * @return whether it waited, so that the caller looks again
     */
    private static boolean waitedBriefly(long deadline) {
        if (System.nanoTime() - deadline >= 0 || Thread.currentThread().isInterrupted()) {
            return false;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        return true;
    }
}
