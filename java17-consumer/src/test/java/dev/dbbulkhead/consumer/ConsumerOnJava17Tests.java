package dev.dbbulkhead.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.dbbulkhead.BulkheadMisuseException;
import dev.dbbulkhead.MisuseKind;
import dev.dbbulkhead.test.WorkloadSaturation;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The starter in an application built for Java 17, run on the JDK that {@code consumer.java.home} names (a JDK 17
 * in CI): an admitted call, a refused one (503 over HTTP) and a misuse.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class ConsumerOnJava17Tests {

    /** Class files of Java 17. */
    private static final int JAVA_17_CLASS_VERSION = 61;

    private static final EmbeddedPostgres POSTGRES = startPostgres();

    private final HttpClient http = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry bulkheads;

    @Autowired
    VisitCounter visits;

    @Autowired
    TransactionTemplate transactions;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> POSTGRES.getJdbcUrl("postgres", "postgres"));
        registry.add("spring.datasource.username", () -> "postgres");
        registry.add("spring.datasource.password", () -> "");
    }

    @AfterAll
    static void stopPostgres() throws IOException {
        POSTGRES.close();
    }

    @Test
    void theApplicationAndTheStarterAreJava17ClassesRunningOnTheRequestedJdk() throws IOException {
        assertThat(Path.of(System.getProperty("java.home")).toRealPath())
                .isEqualTo(Path.of(System.getProperty("consumer.java.home")).toRealPath());
        assertThat(classVersionOf(ConsumerApplication.class)).isEqualTo(JAVA_17_CLASS_VERSION);
        assertThat(classVersionOf(BulkheadRegistry.class)).isEqualTo(JAVA_17_CLASS_VERSION);
        assertThat(classVersionOf(dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration.class))
                .isEqualTo(JAVA_17_CLASS_VERSION);
        assertThat(classVersionOf(WorkloadSaturation.class)).isEqualTo(JAVA_17_CLASS_VERSION);
    }

    @Test
    void anAdmittedCallCommits() throws Exception {
        HttpResponse<String> first = visit("home");
        HttpResponse<String> second = visit("home");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("1");
        assertThat(second.body()).isEqualTo("2");
    }

    @Test
    void aCallBeyondTheWorkloadsPlacesIsAnswered503() throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<?> held = caller.submit(() -> bulkheads.template("visits").executeWithoutResult(status -> {
                holding.countDown();
                await(release);
            }));
            holding.await();

            HttpResponse<String> refused = visit("busy");

            release.countDown();
            held.get();
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After"))
                    .as("at least retry-after, at most twice it: the default jitter")
                    .hasValueSatisfying(seconds -> assertThat(seconds).isIn("1", "2"));
            assertThat(refused.body()).contains("\"workload\":\"visits\"").contains("\"reason\":\"ADMISSION_FULL\"");
            assertThat(visit("busy").statusCode()).as("the place is free again").isEqualTo(200);
        } finally {
            release.countDown();
            caller.shutdownNow();
        }
    }

    @Test
    void aSaturatedWorkloadIsAnswered503AndServesAgainOnceTheSaturationIsClosed() throws Exception {
        HttpResponse<String> refused;
        try (WorkloadSaturation saturated = WorkloadSaturation.of(bulkheads, "visits")) {
            refused = visit("saturated");
        }

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.body()).contains("\"workload\":\"visits\"").contains("\"reason\":\"ADMISSION_FULL\"");
        assertThat(visit("saturated").statusCode()).as("every place is back").isEqualTo(200);
    }

    @Test
    void enteringTheBulkheadInsideATransactionIsRefusedAsMisuse() {
        BulkheadMisuseException misuse = catchThrowableOfType(BulkheadMisuseException.class,
                () -> transactions.execute(status -> visits.visit("inside")));

        assertThat(misuse.kind()).isEqualTo(MisuseKind.ACTIVE_TRANSACTION);
        assertThat(misuse.workload()).isEqualTo("visits");
    }

    private HttpResponse<String> visit(String page) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/pages/" + page + "/visits"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int classVersionOf(Class<?> type) throws IOException {
        try (InputStream in = type.getResourceAsStream(type.getSimpleName() + ".class");
             DataInputStream data = new DataInputStream(in)) {
            data.readInt(); // magic
            data.readUnsignedShort(); // minor version
            return data.readUnsignedShort();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while holding the place", e);
        }
    }

    private static EmbeddedPostgres startPostgres() {
        try {
            return EmbeddedPostgres.builder().start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start the embedded PostgreSQL 17", e);
        }
    }
}
