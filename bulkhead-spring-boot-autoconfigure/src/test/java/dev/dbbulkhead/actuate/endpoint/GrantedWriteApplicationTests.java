package dev.dbbulkhead.actuate.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.autoconfigure.WebApplicationTestSupport;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/** Resizing a workload over HTTP once the application grants the endpoint unrestricted access. */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
@TestPropertySource(properties = "management.endpoint.dbbulkheads.access=unrestricted")
class GrantedWriteApplicationTests extends WebApplicationTestSupport {

    @AfterEach
    void restoreTheConfiguredLimits() {
        registry.template("reports").resize(2, 0);
    }

    @Test
    void aShrinkUnderLoadReturnsWhileTheHeldOperationsRunAndNewAdmissionsObeyTheNewLimitAsTheyDrain()
            throws Exception {
        BulkheadTemplate reports = registry.template("reports");
        try (HeldOperations running = HeldOperations.hold(reports, 2)) {

            HttpResponse<String> resized = post("/actuator/dbbulkheads/reports", "{\"maxConcurrent\": 1}");

            assertThat(resized.statusCode()).isEqualTo(200);
            JsonNode workload = json(resized);
            assertThat(workload.get("maxConcurrent").asInt()).isEqualTo(1);
            assertThat(workload.get("active").asInt()).as("both still running, undisturbed").isEqualTo(2);
            assertThat(get("/workloads/reports").statusCode()).isEqualTo(503);

            running.release(0);
            assertThat(reports.gate().active()).isEqualTo(1);
            assertThat(get("/workloads/reports").statusCode()).as("one runs: the new limit of one is reached")
                    .isEqualTo(503);

            running.release(1);
            assertThat(running.failures).isEmpty();
        }
        assertThat(get("/workloads/reports").statusCode()).isEqualTo(200);
        assertThat(reports.gate().availableExecutionPermits()).isEqualTo(1);
    }

    @Test
    void growingTakesEffectAtOnceAndALimitLeftOutKeepsItsValue() throws Exception {
        try (HeldOperations running = HeldOperations.hold(registry.template("reports"), 2)) {
            assertThat(get("/workloads/reports").statusCode()).isEqualTo(503);

            JsonNode workload = json(post("/actuator/dbbulkheads/reports", "{\"maxConcurrent\": 3}"));

            assertThat(workload.get("maxConcurrent").asInt()).isEqualTo(3);
            assertThat(workload.get("maxQueued").asInt()).isZero();
            assertThat(get("/workloads/reports").statusCode()).isEqualTo(200);
        }
        JsonNode queued = json(post("/actuator/dbbulkheads/reports", "{\"maxQueued\": 4}"));
        assertThat(queued.get("maxConcurrent").asInt()).isEqualTo(3);
        assertThat(queued.get("maxQueued").asInt()).isEqualTo(4);
    }

    @Test
    void resizingAnUnknownWorkloadAnswers404AsReadingOneDoes() throws Exception {
        assertThat(get("/actuator/dbbulkheads/missing").statusCode()).isEqualTo(404);
        assertThat(post("/actuator/dbbulkheads/missing", "{\"maxConcurrent\": 1}").statusCode()).isEqualTo(404);
        assertThat(registry.names()).doesNotContain("missing");
    }

    @Test
    void theBudgetShownByTheEndpointIsRecomputedAfterAResize() throws Exception {
        assertThat(budgetFindings()).anySatisfy(finding -> {
            assertThat(finding.get("kind").asString()).isEqualTo("UNGATED_CONNECTIONS");
            assertThat(finding.get("message").asString()).contains("orders=8", "reports=2", "queued=8", " = 18 at once");
        });

        assertThat(post("/actuator/dbbulkheads/reports", "{\"maxConcurrent\": 14}").statusCode()).isEqualTo(200);

        assertThat(budgetFindings()).noneSatisfy(
                finding -> assertThat(finding.get("kind").asString()).isEqualTo("UNGATED_CONNECTIONS"));
    }

    private List<JsonNode> budgetFindings() throws Exception {
        HttpResponse<String> response = get("/actuator/dbbulkheads");
        assertThat(response.statusCode()).isEqualTo(200);
        List<JsonNode> findings = new ArrayList<>();
        json(response).get("budget").get("findings").forEach(findings::add);
        return findings;
    }

    @Test
    void badResizesAreRefusedWith400AndTheLimitsStay() throws Exception {
        assertThat(post("/actuator/dbbulkheads/reports", "{\"maxConcurrent\": 0}").statusCode()).isEqualTo(400);
        assertThat(post("/actuator/dbbulkheads/reports", "{\"maxQueued\": -1}").statusCode()).isEqualTo(400);
        assertThat(post("/actuator/dbbulkheads/reports", "{}").statusCode()).isEqualTo(400);

        assertThat(registry.template("reports").gate().config().maxConcurrent()).isEqualTo(2);
        assertThat(registry.template("reports").gate().config().maxQueued()).isZero();
    }

    @Test
    void aResizeBeyondThePoolOrTheLargestQueueIsRefusedNamingTheBoundAndTheLimitsStay(
            @org.springframework.beans.factory.annotation.Autowired BulkheadsEndpoint endpoint) throws Exception {
        assertThat(post("/actuator/dbbulkheads/reports", "{\"maxConcurrent\": 31}").statusCode())
                .as("above the pool's 30 connections").isEqualTo(400);
        assertThat(post("/actuator/dbbulkheads/reports", "{\"maxConcurrent\": 2147483647}").statusCode()).isEqualTo(400);
        assertThat(post("/actuator/dbbulkheads/reports", "{\"maxQueued\": 10001}").statusCode()).isEqualTo(400);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> endpoint.resize("reports", 31, null))
                .hasMessageContaining("maximumPoolSize 30").hasMessageContaining("was 31");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> endpoint.resize("reports", null, 10_001))
                .hasMessageContaining("at most 10000").hasMessageContaining("was 10001");

        assertThat(registry.template("reports").gate().config().maxConcurrent()).isEqualTo(2);
        assertThat(registry.template("reports").gate().config().maxQueued()).isZero();
        assertThat(post("/actuator/dbbulkheads/reports", "{\"maxConcurrent\": 30, \"maxQueued\": 10000}")
                .statusCode()).as("the bounds themselves").isEqualTo(200);
    }
}
