package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.ApplicationTestSupport;
import dev.dbbulkhead.testing.RepositoryFiles;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The endpoint reference, docs/reference/endpoint.md, against the endpoint's answer: every object the page shows has
 * exactly the keys the answer has, the parts it calls absent are absent where they do not apply, and durations read
 * as a configuration writes them. Workload {@code orders} has every part (fair shares, lending, timeouts), {@code
 * adaptive} an adaptive B.
 */
@SpringBootTest(classes = EndpointReferenceTests.EndpointApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.workloads.orders.max-concurrent=4",
                "db.bulkhead.workloads.orders.max-queued=16",
                "db.bulkhead.workloads.orders.queue-wait=50ms",
                "db.bulkhead.workloads.orders.statement-timeout=2s",
                "db.bulkhead.workloads.orders.lock-timeout=500ms",
                "db.bulkhead.workloads.orders.criticality.critical-reserve=0.1",
                "db.bulkhead.workloads.orders.fair-share.enabled=true",
                "db.bulkhead.workloads.orders.lending.borrow=2",
                "db.bulkhead.workloads.adaptive.max-concurrent=4",
                "db.bulkhead.workloads.adaptive.limit.mode=adaptive",
                "db.bulkhead.request-deadline.headers.grpc-timeout=grpc-timeout",
                "db.bulkhead.request-deadline.budget=2s",
                "db.bulkhead.request-deadline.paths[0].pattern=/reports/**",
                "db.bulkhead.request-deadline.paths[0].budget=5s",
                "management.endpoints.web.exposure.include=dbbulkheads"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
@DirtiesContext
class EndpointReferenceTests {

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    /** Objects keyed by data (header names, paths, keys), whose keys are examples, not the shape. */
    private static final Set<String> KEYED_BY_DATA = Set.of("headers", "paths", "weights", "activeSessions", "limits",
            "pools", "recognised", "writesPerSecondByB");

    /** Measurements the page shows, absent from the answer until measured (the page says so). */
    private static final Set<String> ABSENT_UNTIL_MEASURED = Set.of("noLoadHoldTime", "recentHoldTime");

    /** A JSON object written inline in the page's prose, between backticks. */
    private static final Pattern INLINE_OBJECT = Pattern.compile("`(\\{\"[^`]*})`");

    @Value("${local.server.port}")
    int port;

    private JsonNode answer;

    private String page;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        ApplicationTestSupport.sharedDatabase(properties);
    }

    @Autowired
    BulkheadRegistry registry;

    @BeforeEach
    void readBoth() throws Exception {
        // Hold times are shown once measured: the adaptive workload runs a few operations first.
        for (int i = 0; i < 20; i++) {
            registry.template("adaptive").execute(status -> 1);
        }
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + port + "/actuator/dbbulkheads")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        answer = JSON.readTree(response.body());
        page = Files.readString(RepositoryFiles.path("docs/reference/endpoint.md"));
    }

    @Test
    void theWorkloadOfTheFirstSampleHasExactlyTheKeysOfTheAnswerWithThePartsThatDoNotApplyAbsent() {
        JsonNode documented = firstJsonBlock().get("workloads").get("orders");
        ObjectNode orders = ((ObjectNode) answer.get("workloads").get("orders")).deepCopy();
        assertThat(keys(orders)).as("orders has lending and rules, which the sample leaves to their paragraphs")
                .contains("lending", "rules");
        orders.remove(List.of("lending", "rules"));
        assertThat(keys(orders)).as("in the sample's order").containsExactlyElementsOf(keys(documented));
        assertSameShape("workloads.orders", documented, orders);
        assertThat(keys(answer.get("workloads").get("adaptive"))).as("no rules: absent, not null")
                .doesNotContain("rules");
    }

    @Test
    void everyObjectThePageShowsInlineHasExactlyTheKeysOfItsPartOfTheAnswer() {
        JsonNode workloads = answer.get("workloads");
        List<String> compared = new ArrayList<>();
        Matcher inline = INLINE_OBJECT.matcher(page.replace("\n", ""));
        while (inline.find()) {
            JsonNode documented = JSON.readTree(inline.group(1));
            JsonNode part = documented.has("learnt") ? workloads.get("adaptive").get("limit")
                    : documented.has("discipline") ? workloads.get("orders").get("queue")
                    : documented.has("maxAttempts") ? workloads.get("orders").get("retry")
                    : documented.has("borrow") ? workloads.get("orders").get("lending")
                    : documented.has("budget") && documented.has("paths") ? answer.get("requestDeadline")
                    : null;
            if (part != null) {
                assertSameShape(inline.group(1), documented, part);
                compared.add(keys(documented).iterator().next());
            }
        }
        assertThat(compared).as("the adaptive limit, the queue, the retries, lending and request deadlines")
                .containsExactlyInAnyOrder("mode", "discipline", "maxAttempts", "pool", "headers");
    }

    @Test
    void theRulesSampleHasExactlyTheKeysOfTheAnswersRules() {
        JsonNode rules = jsonBlocks().stream().filter(block -> block.has("rules")).findFirst().orElseThrow()
                .get("rules");
        assertSameShape("rules", rules, answer.get("workloads").get("orders").get("rules"));
    }

    @Test
    void everyDurationOfTheAnswerAndOfThePageIsWrittenAsAConfigurationWritesIt() {
        assertThat(answer.toString()).doesNotContainPattern("\"-?PT[0-9]");
        assertThat(page).doesNotContainPattern("\"-?PT[0-9]");
        JsonNode operation = answer.get("workloads").get("orders").get("operation");
        assertThat(operation.get("statementTimeout").asString()).isEqualTo("2s");
        assertThat(operation.get("lockTimeout").asString()).isEqualTo("500ms");
        assertThat(operation.get("deadline").asString()).isEqualTo("none");
        assertThat(operation.get("retryAfter").asString()).isEqualTo("1s");
        assertThat(answer.get("workloads").get("orders").get("queueWait").asString()).isEqualTo("50ms");
        assertThat(answer.get("requestDeadline").get("paths").get("/reports/**").asString()).isEqualTo("5s");
    }

    /** The same keys, in objects nested at the same places, down to values keyed by data. */
    private static void assertSameShape(String where, JsonNode documented, JsonNode answered) {
        assertThat(answered).as("%s in the answer", where).isNotNull();
        Set<String> expected = keys(documented);
        expected.removeIf(key -> ABSENT_UNTIL_MEASURED.contains(key) && !answered.has(key));
        assertThat(keys(answered)).as("the keys of %s", where).containsExactlyInAnyOrderElementsOf(expected);
        for (String key : expected) {
            JsonNode inPage = documented.get(key);
            JsonNode inAnswer = answered.get(key);
            if (inPage.isObject() && inAnswer.isObject() && !KEYED_BY_DATA.contains(key)) {
                assertSameShape(where + "." + key, inPage, inAnswer);
            } else if (inPage.isArray() && inAnswer.isArray() && !inPage.isEmpty() && !inAnswer.isEmpty()
                    && inPage.get(0).isObject()) {
                assertSameShape(where + "." + key + "[0]", inPage.get(0), inAnswer.get(0));
            }
        }
    }

    private static Set<String> keys(JsonNode node) {
        return new LinkedHashSet<>(node.propertyNames());
    }

    private JsonNode firstJsonBlock() {
        return jsonBlocks().getFirst();
    }

    private List<JsonNode> jsonBlocks() {
        List<JsonNode> blocks = new ArrayList<>();
        Matcher block = Pattern.compile("```json\n(.*?)```", Pattern.DOTALL).matcher(page);
        while (block.find()) {
            blocks.add(JSON.readTree(block.group(1)));
        }
        return blocks;
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class EndpointApplication {
    }
}
