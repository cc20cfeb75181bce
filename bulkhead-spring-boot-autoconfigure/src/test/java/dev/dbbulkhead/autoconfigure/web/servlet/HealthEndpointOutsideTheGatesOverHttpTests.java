package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.WebApplicationTestSupport;
import dev.dbbulkhead.gate.HeldPlaces;
import dev.dbbulkhead.jdbc.ungated.support.HealthEndpointOutsideGates;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The health endpoint over HTTP while every place of the workload its path is bound to is taken: an {@code http} rule
 * binds every GET to workload {@code web} (B = 1, no queue) and another thread holds its one place. The health
 * endpoint's borrow runs marked where it begins, outside the gates: the database is reported up, not refused, while
 * an application endpoint on the same rule is refused.
 */
@SpringBootTest(classes = HealthEndpointOutsideTheGatesOverHttpTests.HealthApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.workloads.web.max-concurrent=1", "db.bulkhead.workloads.web.max-queued=0",
                "db.bulkhead.workloads.other.max-concurrent=1", "db.bulkhead.workloads.other.max-queued=0",
                "db.bulkhead.work.default-workload=other",
                "db.bulkhead.work.rules[0].workload=web", "db.bulkhead.work.rules[0].http=GET /**",
                "management.endpoint.health.show-components=always"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class HealthEndpointOutsideTheGatesOverHttpTests extends WebApplicationTestSupport {

    @Autowired
    WatchedPools pools;

    @Test
    void theHealthEndpointReportsTheDatabaseUpWhileTheWorkloadOfItsPathIsFull() throws Exception {
        try (HeldPlaces held = HeldPlaces.of(registry.template("web").gate())) {
            HttpResponse<String> count = get("/count");
            HttpResponse<String> health = get("/actuator/health");

            assertThat(count.statusCode()).as(count.body()).isEqualTo(503);
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
            assertThat(health.body()).contains("\"db\":{\"status\":\"UP\"");
        }
        assertThat(pools.detectors().get(0).report().recognised())
                .containsKey(HealthEndpointOutsideGates.RULE);
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(CountController.class)
    static class HealthApplication {
    }

    @RestController
    static class CountController {

        private final JdbcTemplate jdbc;

        CountController(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @GetMapping("/count")
        Integer count() {
            return jdbc.queryForObject("SELECT 1", Integer.class);
        }
    }
}
