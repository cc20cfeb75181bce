package dev.dbbulkhead.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.testing.Await;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The sample stopped as a newcomer stops it, with SIGTERM, in a JVM of its own on its own embedded PostgreSQL, while
 * a report runs: the request completes, the gates drain, and the database stops only after them, ending no
 * connection under the application.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class SampleShutdownTests {

    private static final Pattern STARTED = Pattern.compile("Tomcat started on port (\\d+)");

    private final HttpClient http = HttpClient.newHttpClient();
    private final List<String> output = new CopyOnWriteArrayList<>();
    /** The port the sample listens on once started; -1 when its output ended first. */
    private final CompletableFuture<Integer> started = new CompletableFuture<>();
    /** Completed once all the sample's output has been read. */
    private final CompletableFuture<Void> outputRead = new CompletableFuture<>();

    @Test
    void onSigtermAReportInFlightCompletesAndTheEmbeddedDatabaseStopsAfterTheApplicationHasDrained()
            throws Exception {
        Process sample = startSample();
        try {
            int port = started.get();
            assertThat(port).as("started: " + output).isPositive();

            CompletableFuture<HttpResponse<String>> report = http.sendAsync(
                    HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/reports/sales?heavyMillis=3000"))
                            .build(), HttpResponse.BodyHandlers.ofString());
            Await.until("the report runs in its gate", () -> reportsActive(port));

            // SIGTERM through the process handle, which leaves the output open to read the shutdown from.
            assertThat(sample.toHandle().destroy()).isTrue();

            HttpResponse<String> completed = report.get();
            assertThat(sample.waitFor()).as("exit status after SIGTERM").isIn(0, 143);
            outputRead.get();
            assertThat(completed.statusCode()).as(completed.body()).isEqualTo(200);
            String log = String.join("\n", output);
            assertThat(log).contains("1 operation in flight (reports: 1 running, 0 queued)")
                    .contains("Every database workload drained");
            assertThat(log).doesNotContain("FATAL").doesNotContain("terminating connection");
        } finally {
            sample.destroyForcibly();
        }
    }

    private Process startSample() throws IOException {
        // The application's own classes and dependencies, without the test classes and their configuration.
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).endsWith("test-classes"))
                .collect(Collectors.joining(File.pathSeparator));
        Process sample = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, SampleApplication.class.getName(), "--server.port=0")
                .redirectErrorStream(true).start();
        Thread.ofPlatform().daemon().name("sample-output").start(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(sample.getInputStream(), StandardCharsets.UTF_8))) {
                lines.lines().forEach(line -> {
                    output.add(line);
                    Matcher listening = STARTED.matcher(line);
                    if (listening.find()) {
                        started.complete(Integer.parseInt(listening.group(1)));
                    }
                });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                started.complete(-1);
                outputRead.complete(null);
            }
        });
        return sample;
    }

    private boolean reportsActive(int port) {
        try {
            String active = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                            + "/actuator/metrics/db.bulkhead.active?tag=workload:reports")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            return active.contains("\"value\":1.0");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
