package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.testing.TestDatabase;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntToLongFunction;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;

/** One running application of a {@link UserPath}, on its own HikariCP pool of a schema of the local PostgreSQL. */
public final class PathApplication implements AutoCloseable {

    /**
     * Pool size, gate limit and Resilience4j's limit alike, the pool as large as the sum of the gates' limits (as the
     * README advises): with 1 or 8 callers nobody waits, so the benchmark measures the cost of passing.
     */
    public static final int WIDTH = 16;

    /**
     * The most callers the harness runs (512 virtual threads): the gate queues them all, so that a closed loop of that
     * many is slowed by the queue, never refused.
     */
    public static final int MOST_CALLERS = 512;

    /**
     * How long a caller may wait for the gate, for Resilience4j's permit and for a connection (HikariCP's default,
     * named here so that all three stay equal): far longer than 512 callers queued behind 16 connections ever wait,
     * so that nobody times out.
     */
    static final Duration LONGEST_WAIT = Duration.ofSeconds(30);

    private final AnnotationConfigApplicationContext context;
    private final IntToLongFunction entry;

    private PathApplication(AnnotationConfigApplicationContext context, IntToLongFunction entry) {
        this.context = context;
        this.entry = entry;
    }

    /** Starts the application of {@code path} on {@code database}, whose {@code account} table it credits. */
    public static PathApplication start(UserPath path, TestDatabase database) {
        return start(path, database, new Class<?>[0]);
    }

    /** The same with {@code additions} registered beside the path's configuration: for checks that watch the path. */
    static PathApplication start(UserPath path, TestDatabase database, Class<?>... additions) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        Map<String, Object> properties = new HashMap<>(BenchDatabase.bootDataSource(database));
        properties.putAll(Map.ofEntries(
                Map.entry("spring.datasource.hikari.pool-name", "path-" + path.name().toLowerCase()),
                Map.entry("spring.datasource.hikari.maximum-pool-size", WIDTH),
                Map.entry("spring.datasource.hikari.minimum-idle", WIDTH),
                Map.entry("spring.datasource.hikari.connection-timeout", LONGEST_WAIT.toMillis()),
                Map.entry("db.bulkhead.workloads.orders.max-concurrent", WIDTH),
                Map.entry("db.bulkhead.workloads.orders.max-queued", MOST_CALLERS),
                Map.entry("db.bulkhead.workloads.orders.queue-wait", LONGEST_WAIT.toMillis() + "ms"),
                Map.entry("resilience4j.bulkhead.instances.orders.max-concurrent-calls", WIDTH),
                Map.entry("resilience4j.bulkhead.instances.orders.max-wait-duration",
                        LONGEST_WAIT.toMillis() + "ms")));
        properties.putAll(path.properties());
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("path-cost", properties));
        context.register(path.configuration());
        if (additions.length > 0) {
            context.register(additions);
        }
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

    /** The beans of a type the application has, none or more, for checks of what a path sets up. */
    <T> Collection<T> beans(Class<T> type) {
        return context.getBeansOfType(type).values();
    }

    @Override
    public void close() {
        context.close();
    }
}
