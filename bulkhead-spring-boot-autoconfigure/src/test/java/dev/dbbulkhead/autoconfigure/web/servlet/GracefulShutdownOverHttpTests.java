package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * An application closed while its workload is busy, over real HTTP on PostgreSQL: workload {@code orders}, B = 1,
 * Q = 1, one operation running for a request and one queued; the gates refuse what comes next with
 * {@code SHUTTING_DOWN} while both finish, and the log tells the drain.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class GracefulShutdownOverHttpTests {

    private static final CountDownLatch runningEntered = new CountDownLatch(1);
    private static final CountDownLatch runningMayEnd = new CountDownLatch(1);
    private static final CountDownLatch lateEntered = new CountDownLatch(1);
    private static final CountDownLatch lateMayAsk = new CountDownLatch(1);

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void onShutdownNewWorkIsAnswered503ShuttingDownWhileAdmittedWorkFinishesAndTheLogTellsTheDrain(
            CapturedOutput output) throws Exception {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ShutdownApplication.class)
                .properties(SharedDatabase.dataSourceProperties())
                .run("--server.port=0", "--server.shutdown=graceful",
                        "--spring.lifecycle.timeout-per-shutdown-phase=1m",
                        "--db.bulkhead.workloads.orders.max-concurrent=1",
                        "--db.bulkhead.workloads.orders.max-queued=1", "--db.bulkhead.workloads.orders.queue-wait=1m",
                        "--db.bulkhead.workloads.orders.retry-after=2s",
                        "--db.bulkhead.workloads.orders.retry-after-jitter=0s");
        int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");
        Counter refusedOnShutdown = context.getBean(MeterRegistry.class).get("db.bulkhead.rejected")
                .tags("workload", "orders", "reason", "shutting_down").counter();

        CompletableFuture<HttpResponse<String>> running = get(port, "/running");
        runningEntered.await();
        CompletableFuture<Integer> queued = CompletableFuture.supplyAsync(() -> orders.execute(status -> 7),
                command -> Thread.ofVirtual().start(command));
        Await.until("an operation waits in the queue", () -> orders.gate().queueLength() == 1);
        CompletableFuture<HttpResponse<String>> late = get(port, "/late");
        lateEntered.await();

        Thread closing = Thread.ofPlatform().name("closing").start(context::close);
        Await.until("the gate shuts down", () -> orders.gate().isShuttingDown());

        lateMayAsk.countDown();
        HttpResponse<String> refused = late.get();
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(refused.body()).contains("\"reason\":\"SHUTTING_DOWN\"").contains("shutting down");
        assertThat(catchThrowableOfType(BulkheadRejectedException.class, () -> orders.execute(status -> 0)).reason())
                .isEqualTo(RejectionReason.SHUTTING_DOWN);
        assertThat(orders.gate().isDrained()).isFalse();

        runningMayEnd.countDown();
        assertThat(running.get().statusCode()).isEqualTo(200);
        assertThat(running.get().body()).isEqualTo("1");
        assertThat(queued.get()).as("queued before the shutdown, so it still runs").isEqualTo(7);
        closing.join();

        assertThat(orders.gate().isDrained()).isTrue();
        assertThat(refusedOnShutdown.count()).isEqualTo(2.0);
        assertThat(output).contains("Shutting down the database workloads: new work is refused; 2 operations in"
                + " flight (orders: 1 running, 1 queued)");
        assertThat(output).contains("Every database workload drained: no operation runs or waits in orders, ");
        assertThat(output).doesNotContain("not drained");
    }

    private CompletableFuture<HttpResponse<String>> get(int port, String path) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Endpoints.class)
    static class ShutdownApplication {
    }

    @RestController
    static class Endpoints {

        private final BulkheadTemplate orders;

        Endpoints(BulkheadRegistry registry) {
            this.orders = registry.template("orders");
        }

        /** Runs an operation until the test lets it end. */
        @GetMapping("/running")
        Integer running() {
            return orders.execute(status -> {
                runningEntered.countDown();
                awaitUninterruptibly(runningMayEnd);
                return 1;
            });
        }

        /** A request that reaches its gate only when the test lets it: after the shutdown began. */
        @GetMapping("/late")
        Integer late() {
            lateEntered.countDown();
            awaitUninterruptibly(lateMayAsk);
            return orders.execute(status -> 2);
        }

        private static void awaitUninterruptibly(CountDownLatch latch) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
