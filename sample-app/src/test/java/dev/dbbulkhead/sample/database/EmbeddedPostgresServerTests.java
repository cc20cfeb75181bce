package dev.dbbulkhead.sample.database;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.testing.Await;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The embedded server stops only once the sessions of the application have left it: a session whose client is still
 * hanging up when the application's context destroys the server ends on its own, not by the server's shutdown.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class EmbeddedPostgresServerTests {

    @Test
    void aSessionStillLeavingWhenTheServerIsDestroyedEndsOnItsOwnBeforeTheServerStops() throws Exception {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().setRegisterShutdownHook(false).start();
        try {
            EmbeddedPostgresServer server = new EmbeddedPostgresServer(postgres);
            Connection client = postgres.getPostgresDatabase().getConnection();
            // The client hangs up only once the server is about to stop: a pool whose connections are still closing.
            CompletableFuture<String> clientEnded = new CompletableFuture<>();
            Thread.ofPlatform().name("closing-client").start(() -> {
                try (Connection closing = client; Statement statement = closing.createStatement()) {
                    Await.until("the server is about to stop", () -> shutdownSessionOpen(statement));
                    clientEnded.complete("closed by its client");
                } catch (SQLException | RuntimeException ended) {
                    clientEnded.complete("ended by the server: " + ended.getMessage());
                }
            });

            server.destroy();

            assertThat(clientEnded.get()).isEqualTo("closed by its client");
        } finally {
            stop(postgres);
        }
    }

    private static boolean shutdownSessionOpen(Statement statement) {
        try (ResultSet open = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                + EmbeddedPostgresServer.SHUTDOWN_SESSION + "'")) {
            open.next();
            return open.getLong(1) > 0;
        } catch (SQLException ended) {
            throw new IllegalStateException(ended.getMessage(), ended);
        }
    }

    /** Stops the server when the test failed before destroying it; closing it twice does nothing. */
    private static void stop(EmbeddedPostgres postgres) throws IOException {
        postgres.close();
    }
}
