package org.springframework.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.junit.jupiter.SpringExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An application whose package lies under {@code org.springframework}, in {@code warn} mode on Spring Data JPA: the
 * ungated-work report names its own loader, formatter and controller method, by class, method and the line of the
 * repository call — not the rejection filter, not a frame of Spring, of this library or of the test runner.
 */
@SpringBootTest(classes = DemoApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "management.endpoints.web.exposure.include=dbbulkheads")
@ExtendWith({SpringExtension.class, OutputCaptureExtension.class})
@Timeout(value = 3, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class ApplicationInSpringsPackageTests {

    private final HttpClient http = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    DemoOwnerRepository owners;

    @Test
    void itsLoaderItsFormatterAndItsControllerMethodAreNamedByTheirOwnClassMethodAndLine(CapturedOutput output)
            throws Exception {
        String name = "ada-" + UUID.randomUUID();
        long id = registry.template("shop").execute(status -> owners.save(new DemoOwner(name)).getId());
        List<String> expected = List.of(site(OwnerController.class, "findOwner", "owners.findById("),
                site(OwnerFormatter.class, "parse", "owners.findByName("),
                site(OwnerSearchController.class, "count", "owners.count("));

        assertThat(get("/owners/" + id).body()).isEqualTo(name);
        assertThat(get("/by-name/" + name).body()).isEqualTo(String.valueOf(id));
        assertThat(get("/owner-count").statusCode()).isEqualTo(200);

        Map<String, Boolean> guessedBySite = new LinkedHashMap<>();
        JsonNode pool = endpoint().get("ungated").get("pools").get("dataSource");
        pool.get("callSites").forEach(site -> guessedBySite.put(site.get("site").asString(),
                site.path("guess").asBoolean()));
        assertThat(guessedBySite).as(pool.toString()).containsOnlyKeys(expected)
                .allSatisfy((site, guess) -> assertThat(guess).as(site).isFalse());
        for (String site : expected) {
            assertThat(output).contains("outside every gate by " + site + ": no workload's limit");
        }
        assertThat(output).doesNotContain("BulkheadRejectionFilter", "a guess");
    }

    /** {@code class.method(File.java:line)}, the line that of {@code call} in the class's source, as a trace names it. */
    private static String site(Class<?> type, String method, String call) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("src/test/java", type.getName().replace('.', '/') + ".java"));
        int line = IntStream.range(0, lines.size()).filter(i -> lines.get(i).contains(call)).findFirst()
                .orElseThrow() + 1;
        return type.getName() + "." + method + "(" + type.getSimpleName() + ".java:" + line + ")";
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(path + ": " + answer.body()).isEqualTo(200);
        return answer;
    }

    private JsonNode endpoint() throws IOException, InterruptedException {
        return JsonMapper.builder().build().readTree(get("/actuator/dbbulkheads").body());
    }
}
