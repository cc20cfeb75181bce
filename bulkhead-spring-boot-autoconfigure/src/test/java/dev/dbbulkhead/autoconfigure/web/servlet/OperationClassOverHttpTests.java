package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.autoconfigure.ApplicationTestSupport;
import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.metrics.KeyMeterBinder;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Criticality and fair shares over real HTTP, on PostgreSQL. Workload {@code tenants}: B = 2, Q = 2, fair shares, so
 * that nobody is refused while a place is free, and with every place taken the waiter of the key furthest over its
 * share gives its place to another key's request. Workload {@code checkout}: B = 3, Q = 0, one place
 * held back for critical work and two from sheddable work. Keys come from the {@code X-Tenant} header or a method
 * argument; criticality from the {@code X-Criticality} header, the annotation or the template. Each contention is
 * made by operations held inside the gate until released: nothing depends on time.
 */
@SpringBootTest(classes = OperationClassOverHttpTests.TenantApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.request-class.key-header=X-Tenant",
                "db.bulkhead.request-class.criticality-header=X-Criticality",
                "db.bulkhead.workloads.tenants.max-concurrent=2",
                "db.bulkhead.workloads.tenants.max-queued=2",
                "db.bulkhead.workloads.tenants.queue-wait=1m",
                "db.bulkhead.workloads.tenants.fair-share.enabled=true",
                "db.bulkhead.workloads.tenants.fair-share.metered-keys=2",
                "db.bulkhead.workloads.checkout.max-concurrent=3",
                "db.bulkhead.workloads.checkout.criticality.critical-reserve=0.34",
                "db.bulkhead.workloads.checkout.criticality.sheddable-reserve=0.67",
                "management.endpoints.web.exposure.include=dbbulkheads"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
// A context of its own, closed after the class: its pool's connections go back to the shared server.
@DirtiesContext
class OperationClassOverHttpTests {

    private final HttpClient http = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    TenantApplication.Checkout checkout;

    @Autowired
    MeterRegistry meters;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        ApplicationTestSupport.sharedDatabase(properties);
    }

    @Test
    void aTenantsWaiterFurthestOverItsShareGivesItsPlaceToAnotherTenant_keysFromTheHeader() throws Exception {
        try (HeldOperations acme = hold("tenants", 2, OperationClass.of(Criticality.DEFAULT, "acme"))) {
            CompletableFuture<HttpResponse<String>> acmeFirst = queued("/tenants", "X-Tenant", "acme");
            CompletableFuture<HttpResponse<String>> acmeSecond = queued("/tenants", "X-Tenant", "acme");

            CompletableFuture<HttpResponse<String>> globex = getAsync("/tenants", "X-Tenant", "globex");

            HttpResponse<String> displaced = acmeSecond.get(1, TimeUnit.MINUTES);
            assertThat(displaced.statusCode()).isEqualTo(503);
            assertThat(displaced.body()).contains("\"reason\":\"OVER_FAIR_SHARE\"").contains("furthest over");
            acme.close();
            assertThat(globex.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
            assertThat(acmeFirst.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
            assertThat(acme.failures).isEmpty();
        }
    }

    @Test
    void aSheddableWaiterPushedOutOfAFullQueueByCriticalWorkIsToldSoOnTheWireAndInTheMeters() throws Exception {
        double pushedOutBefore = pushedOut("tenants");
        try (HeldOperations running = hold("tenants", 2, OperationClass.of(Criticality.DEFAULT))) {
            CompletableFuture<HttpResponse<String>> sheddableFirst = queued("/tenants", "X-Criticality", "sheddable");
            CompletableFuture<HttpResponse<String>> sheddableSecond = queued("/tenants", "X-Criticality", "sheddable");

            CompletableFuture<HttpResponse<String>> critical = getAsync("/tenants", "X-Criticality", "critical");

            HttpResponse<String> pushed = sheddableSecond.get(1, TimeUnit.MINUTES);
            assertThat(pushed.statusCode()).isEqualTo(503);
            assertThat(pushed.body()).as("told apart from the entry ceiling's SHED_BY_CRITICALITY")
                    .contains("\"reason\":\"PUSHED_OUT\"").contains("took this operation's place in its queue");
            assertThat(pushedOut("tenants") - pushedOutBefore).isEqualTo(1.0);
            running.close();
            assertThat(critical.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
            assertThat(sheddableFirst.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
        }
    }

    private double pushedOut(String workload) {
        Counter counter = meters.find("db.bulkhead.rejected").tag("workload", workload)
                .tag("reason", "pushed_out").counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void aKeyFromAMethodArgumentWinsOverTheRequestsKey() throws Exception {
        try (HeldOperations initech = hold("tenants", 2, OperationClass.of(Criticality.DEFAULT, "initech"))) {
            CompletableFuture<HttpResponse<String>> initechFirst = queued("/tenants/initech", "X-Tenant", "umbrella");
            CompletableFuture<HttpResponse<String>> initechSecond = queued("/tenants/initech", "X-Tenant", "umbrella");

            CompletableFuture<HttpResponse<String>> umbrella = getAsync("/tenants/umbrella", "X-Tenant", "initech");

            assertThat(initechSecond.get(1, TimeUnit.MINUTES).body()).contains("\"reason\":\"OVER_FAIR_SHARE\"");
            initech.close();
            assertThat(umbrella.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
            assertThat(initechFirst.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aTenantOverItsShareRunsWhileAPlaceIsFree() throws Exception {
        try (HeldOperations acme = hold("tenants", 1, OperationClass.of(Criticality.DEFAULT, "acme"))) {
            assertThat(get("/tenants", "X-Tenant", "acme").statusCode()).isEqualTo(200);
            assertThat(get("/tenants", null, null).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void sheddableWorkIsRefusedFirstAndCriticalWorkGetsTheReservedPlace() throws Exception {
        BulkheadTemplate gate = registry.template("checkout");
        try (HeldOperations running = HeldOperations.hold(gate, 1)) {
            assertThatThrownBy(checkout::prefetch).as("beyond the sheddable ceiling of 1")
                    .isInstanceOfSatisfying(BulkheadRejectedException.class,
                            refused -> assertThat(refused.reason()).isEqualTo(RejectionReason.SHED_BY_CRITICALITY));
            assertThat(checkout.place()).as("default work still below its ceiling of 2").isEqualTo(1);
            try (HeldOperations second = HeldOperations.hold(gate, 1)) {
                assertThatThrownBy(checkout::place).isInstanceOfSatisfying(BulkheadRejectedException.class,
                        refused -> assertThat(refused.reason()).isEqualTo(RejectionReason.SHED_BY_CRITICALITY));
                assertThat(checkout.pay()).as("the reserved place").isEqualTo(1);
                assertThat(gate.withCriticality(Criticality.CRITICAL).<Integer>execute(status -> 2)).isEqualTo(2);
                assertThatThrownBy(() -> gate.withCriticality(Criticality.SHEDDABLE).execute(status -> 3))
                        .isInstanceOfSatisfying(BulkheadRejectedException.class, refused ->
                                assertThat(refused.reason()).isEqualTo(RejectionReason.SHED_BY_CRITICALITY));
            }
        }
        assertThat(OperationClass.current()).as("every binding ended with its call").isEmpty();
    }

    @Test
    void theRequestsCriticalityIsShedOverHttpUnlessTheAnnotationSaysOtherwise() throws Exception {
        try (HeldOperations running = HeldOperations.hold(registry.template("checkout"), 1)) {
            HttpResponse<String> shed = get("/checkout", "X-Criticality", "sheddable");
            assertThat(shed.statusCode()).isEqualTo(503);
            assertThat(shed.body()).contains("\"reason\":\"SHED_BY_CRITICALITY\"")
                    .contains("keeps its remaining places for more critical work");
            assertThat(get("/checkout", "X-Criticality", "critical").statusCode()).isEqualTo(200);
            assertThat(get("/checkout/pay", "X-Criticality", "sheddable").statusCode())
                    .as("@DbBulkhead(criticality = CRITICAL) wins over the request's").isEqualTo(200);
        }
    }

    @Test
    void theBusiestKeysAreMeteredAndShownCappedTheRestAsOther() throws Exception {
        BulkheadTemplate tenants = registry.template("tenants");
        runAs(tenants, "heavy-1", 60);
        runAs(tenants, "heavy-2", 50);
        for (int i = 0; i < 200; i++) {
            runAs(tenants, "light-" + i, 1);
        }
        runAs(tenants, "heavy-1", 1);

        assertThat(meters.find(KeyMeterBinder.KEY_OPERATIONS).tag("workload", "tenants").meters())
                .extracting(meter -> meter.getId().getTag("key")).as("two metered keys and other, per outcome")
                .containsOnly("heavy-1", "heavy-2", "other").hasSizeLessThanOrEqualTo(6);
        HttpResponse<String> endpoint = get("/actuator/dbbulkheads/tenants", null, null);
        assertThat(endpoint.statusCode()).isEqualTo(200);
        assertThat(endpoint.body()).contains("\"fairShares\":true").contains("\"keySlots\":256")
                .contains("\"meteredKeys\":2").contains("\"topKeys\":[{\"key\":\"" + hashed("heavy-1") + "\"")
                .contains("{\"key\":\"" + hashed("heavy-2") + "\",\"admitted\":")
                .contains("\"otherKeys\":{\"key\":\"other\"").as("keys are shown hashed by default")
                .doesNotContain("heavy-1").doesNotContain("heavy-2");
        assertThat(get("/actuator/dbbulkheads/checkout", null, null).body())
                .contains("\"rules\":{\"criticalReserve\":0.34,\"sheddableReserve\":0.67,\"inProgressFirst\":false,\"fairShares\":false")
                .contains("\"topKeys\":[]");
    }

    @Test
    void operationsWithoutAKeyAreOneFlowHeldToItsShare() throws Exception {
        try (HeldOperations keyless = hold("tenants", 2, OperationClass.of(Criticality.DEFAULT))) {
            CompletableFuture<HttpResponse<String>> keylessFirst = queued("/tenants", null, null);
            CompletableFuture<HttpResponse<String>> keylessSecond = queued("/tenants", null, null);

            CompletableFuture<HttpResponse<String>> victim = getAsync("/tenants", "X-Tenant", "victim");

            assertThat(keylessSecond.get(1, TimeUnit.MINUTES).body()).as("requests without a key are one flow")
                    .contains("\"reason\":\"OVER_FAIR_SHARE\"");
            keyless.close();
            assertThat(victim.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
            assertThat(keylessFirst.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aKeyOfTenKilobytesFromAFormBodyIsKeptAsSixtyFourCharactersInMetersAndTheEndpoint() throws Exception {
        String tenKilobytes = "t".repeat(10_240);
        HttpRequest form = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/tenants/form"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("times=200&tenant=" + tenKilobytes)).build();

        assertThat(http.send(form, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

        String kept = OperationClass.boundedKey(tenKilobytes);
        assertThat(meters.find(KeyMeterBinder.KEY_OPERATIONS).tag("workload", "tenants").meters())
                .extracting(meter -> meter.getId().getTag("key")).as("the busiest key, shortened").contains(kept)
                .allSatisfy(key -> assertThat(key).hasSizeLessThanOrEqualTo(OperationClass.MAX_KEY_LENGTH));
        HttpResponse<String> endpoint = get("/actuator/dbbulkheads/tenants", null, null);
        assertThat(endpoint.body()).contains(hashed(kept)).doesNotContain("tttttttttttttttttttttttttttttttttttttttttttttttt")
                .hasSizeLessThan(4_096);
    }

    private static String hashed(String key) throws Exception {
        byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                .digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return "sha256:" + java.util.HexFormat.of().formatHex(digest, 0, 8);
    }

    private static void runAs(BulkheadTemplate template, String key, int times) {
        try (OperationClass.Scope bound = OperationClass.of(Criticality.DEFAULT, key).bind()) {
            for (int i = 0; i < times; i++) {
                template.execute(status -> 1);
            }
        }
    }

    private HeldOperations hold(String workload, int count, OperationClass operationClass) throws Exception {
        return HeldOperations.hold(registry.template(workload), count, operationClass);
    }

    HttpResponse<String> get(String path, @Nullable String header, @Nullable String value) throws Exception {
        return http.send(request(path, header, value), HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> getAsync(String path, @Nullable String header,
                                                             @Nullable String value) {
        return tenantsRequests().send(request(path, header, value));
    }

    /** Sends a request to the tenants workload and returns once its operation waits in the gate. */
    private CompletableFuture<HttpResponse<String>> queued(String path, @Nullable String header,
                                                           @Nullable String value) {
        return tenantsRequests().queued(request(path, header, value));
    }

    private QueuedRequests tenantsRequests() {
        return new QueuedRequests(registry.template("tenants").gate());
    }

    private HttpRequest request(String path, @Nullable String header, @Nullable String value) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).GET();
        if (header != null && value != null) {
            request.header(header, value);
        }
        return request.build();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({TenantApplication.Tenants.class, TenantApplication.Checkout.class, TenantApplication.Api.class})
    static class TenantApplication {

        @Service
        static class Tenants {

            private final JdbcTemplate jdbc;

            Tenants(JdbcTemplate jdbc) {
                this.jdbc = jdbc;
            }

            @DbBulkhead("tenants")
            public Integer ofTheRequest() {
                return jdbc.queryForObject("SELECT 1", Integer.class);
            }

            @DbBulkhead(value = "tenants", key = "#tenant")
            public Integer of(String tenant) {
                return jdbc.queryForObject("SELECT 1", Integer.class);
            }
        }

        @Service
        static class Checkout {

            private final JdbcTemplate jdbc;

            Checkout(JdbcTemplate jdbc) {
                this.jdbc = jdbc;
            }

            @DbBulkhead("checkout")
            public Integer place() {
                return jdbc.queryForObject("SELECT 1", Integer.class);
            }

            @DbBulkhead(value = "checkout", criticality = Criticality.CRITICAL)
            public Integer pay() {
                return jdbc.queryForObject("SELECT 1", Integer.class);
            }

            @DbBulkhead(value = "checkout", criticality = Criticality.SHEDDABLE)
            public Integer prefetch() {
                return jdbc.queryForObject("SELECT 1", Integer.class);
            }
        }

        @RestController
        static class Api {

            private final Tenants tenants;
            private final Checkout checkout;

            Api(Tenants tenants, Checkout checkout) {
                this.tenants = tenants;
                this.checkout = checkout;
            }

            @GetMapping("/tenants")
            Integer ofTheRequest() {
                return tenants.ofTheRequest();
            }

            @GetMapping("/tenants/{tenant}")
            Integer of(@PathVariable String tenant) {
                return tenants.of(tenant);
            }

            /** A tenant from a form body, {@code times} operations in a row. */
            @org.springframework.web.bind.annotation.PostMapping("/tenants/form")
            Integer ofForm(@org.springframework.web.bind.annotation.RequestParam String tenant,
                           @org.springframework.web.bind.annotation.RequestParam int times) {
                int sum = 0;
                for (int i = 0; i < times; i++) {
                    sum += tenants.of(tenant);
                }
                return sum;
            }

            @GetMapping("/checkout")
            Integer checkout() {
                return checkout.place();
            }

            @GetMapping("/checkout/pay")
            Integer pay() {
                return checkout.pay();
            }
        }
    }
}
