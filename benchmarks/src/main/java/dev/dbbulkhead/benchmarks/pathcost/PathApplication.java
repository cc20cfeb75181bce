package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.testing.TestDatabase;
import java.util.Map;
import java.util.function.IntToLongFunction;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;

/** One running application of a {@link UserPath}, on its own HikariCP pool of a schema of the local PostgreSQL. */
public final class PathApplication implements AutoCloseable {

    /**
     * Pool size, gate limit and Resilience4j's limit alike: twice the benchmark's 8 callers, so that nobody ever waits
     * and the benchmark measures the cost of passing, not of queueing.
     */
    public static final int WIDTH = 16;

    private final AnnotationConfigApplicationContext context;
    private final IntToLongFunction entry;

    private PathApplication(AnnotationConfigApplicationContext context, IntToLongFunction entry) {
        this.context = context;
        this.entry = entry;
    }

    /** Starts the application of {@code path} on {@code database}, whose {@code account} table it credits. */
    public static PathApplication start(UserPath path, TestDatabase database) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("path-cost", Map.ofEntries(
                Map.entry("spring.datasource.url", database.server().jdbcUrl()),
                Map.entry("spring.datasource.username", database.server().username()),
                Map.entry("spring.datasource.password", database.server().password()),
                Map.entry("spring.datasource.hikari.schema", database.schema()),
                Map.entry("spring.datasource.hikari.pool-name", "path-" + path.name().toLowerCase()),
                Map.entry("spring.datasource.hikari.maximum-pool-size", WIDTH),
                Map.entry("spring.datasource.hikari.minimum-idle", WIDTH),
                Map.entry("db.bulkhead.workloads.orders.max-concurrent", WIDTH),
                Map.entry("db.bulkhead.workloads.orders.max-queued", WIDTH),
                Map.entry("db.bulkhead.workloads.orders.queue-wait", "50ms"),
                Map.entry("resilience4j.bulkhead.instances.orders.max-concurrent-calls", WIDTH),
                Map.entry("resilience4j.bulkhead.instances.orders.max-wait-duration", "50ms"))));
        context.register(path.configuration());
        context.refresh();
        return new PathApplication(context, path.entry(context));
    }

    /** Credits account {@code id} through this application's path; returns the new balance. */
    public long credit(int id) {
        return entry.applyAsLong(id);
    }

    /** A bean of the application, for checks that the path really passes its guard. */
    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    @Override
    public void close() {
        context.close();
    }
}
