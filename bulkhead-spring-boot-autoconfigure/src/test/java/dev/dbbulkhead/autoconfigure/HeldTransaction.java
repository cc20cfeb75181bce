package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An operation of a workload on a virtual thread of its own: it runs a query, then holds its transaction open until
 * released, so that the server sees its session {@code idle in transaction} ({@link #busySessions}).
 */
final class HeldTransaction {

    /** "running" once it runs; "ended before running: …" when it was refused instead. */
    final CompletableFuture<String> running = new CompletableFuture<>();
    /** "committed", or what it threw. */
    final CompletableFuture<String> ended = new CompletableFuture<>();
    private final CountDownLatch release = new CountDownLatch(1);

    /** Starts an operation on {@code template}, of class {@code as} when given (its criticality and key). */
    HeldTransaction(BulkheadTemplate template, @Nullable OperationClass as) {
        Runnable operation = () -> {
            try {
                template.executeWithoutResult(status -> {
                    new JdbcTemplate(template.dataSource().orElseThrow()).queryForObject("SELECT 1", Integer.class);
                    running.complete("running");
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                ended.complete("committed");
            } catch (RuntimeException | Error refused) {
                ended.complete(refused.toString());
                running.complete("ended before running: " + refused);
            }
        };
        Thread.ofVirtual().start(as == null ? operation : as.wrap(operation));
    }

    boolean decided() {
        return running.isDone();
    }

    /** Returns once the operation runs; fails at once when it was refused instead. */
    void awaitRunning() throws Exception {
        String state = running.get(30, TimeUnit.SECONDS);
        if (!state.equals("running")) {
            throw new AssertionError("not admitted: " + state);
        }
    }

    void release() {
        release.countDown();
    }

    /** Lets it finish and returns once it committed; fails when it ended otherwise. */
    void releaseAndAwaitCommit() throws Exception {
        release();
        assertThat(ended.get(30, TimeUnit.SECONDS)).isEqualTo("committed");
    }

    /**
     * The pool's sessions inside an open transaction, as every held operation keeps one, counted by the server and,
     * for agreement, by HikariCP; read from a connection of the test's own, outside the pool. (Sessions the pool opens
     * meanwhile run their set-up statements outside a transaction, so they are not counted.)
     *
     * @param applicationName the pool's {@code ApplicationName}, which tells its sessions apart on the server
     */
    static int busySessions(AssertableApplicationContext context, String applicationName) throws SQLException {
        int server;
        try (Connection outside = SharedDatabase.DATABASE.connect();
             PreparedStatement count = outside.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE application_name = ? AND state = 'idle in transaction'")) {
            count.setString(1, applicationName);
            try (ResultSet result = count.executeQuery()) {
                result.next();
                server = result.getInt(1);
            }
        }
        int hikari = context.getBean(HikariDataSource.class).getHikariPoolMXBean().getActiveConnections();
        assertThat(server).as("busy sessions seen by the server and by HikariCP").isEqualTo(hikari);
        return hikari;
    }
}
