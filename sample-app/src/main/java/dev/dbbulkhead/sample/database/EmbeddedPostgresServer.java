package dev.dbbulkhead.sample.database;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
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

    /** Stops the server, once. */
    @Override
    public void destroy() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not stop the embedded PostgreSQL", e);
        }
    }
}
