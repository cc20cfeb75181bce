package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.ApplicationTestSupport;
import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.net.URI;
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
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code db.bulkhead.request-class.key-from-principal=true} over real HTTP, on PostgreSQL, with no resolver bean: the
 * key is the authenticated principal's name, whatever header a client sends, and an anonymous client is one flow with
 * every other. A filter ahead of every other stands for authentication (its {@code X-User} header names the
 * principal). Workload {@code tenants}: B = 2, Q = 2, fair shares: with every place taken, the waiter of the key
 * furthest over its share gives its place to another key's request.
 */
@SpringBootTest(classes = KeyFromPrincipalOverHttpTests.AuthenticatedApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.request-class.key-from-principal=true",
                "db.bulkhead.workloads.tenants.max-concurrent=2",
                "db.bulkhead.workloads.tenants.max-queued=2",
                "db.bulkhead.workloads.tenants.queue-wait=1m",
                "db.bulkhead.workloads.tenants.fair-share.enabled=true",
                "db.bulkhead.workloads.checkout.max-concurrent=1"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
// A context of its own, closed after the class: its pool's connections go back to the shared server.
@DirtiesContext
class KeyFromPrincipalOverHttpTests {

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        ApplicationTestSupport.sharedDatabase(properties);
    }

    @Test
    void thePrincipalIsTheKeyAndAHeaderNamingAnotherTenantChangesNothing() throws Exception {
        try (HeldOperations acme = hold("acme", 2)) {
            QueuedRequests requests = new QueuedRequests(registry.template("tenants").gate());
            CompletableFuture<HttpResponse<String>> acmeFirst = requests.queued(request("acme", "globex"));
            CompletableFuture<HttpResponse<String>> acmeSecond = requests.queued(request("acme", "globex"));

            CompletableFuture<HttpResponse<String>> globex = requests.send(request("globex", "acme"));

            HttpResponse<String> displaced = acmeSecond.get(1, TimeUnit.MINUTES);
            assertThat(displaced.statusCode()).as("acme's waiter, whatever X-Tenant says").isEqualTo(503);
            assertThat(displaced.body()).contains("\"reason\":\"OVER_FAIR_SHARE\"");
            acme.close();
            assertThat(globex.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
            assertThat(acmeFirst.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void anonymousRequestsAreOneFlowHeldToOneShare() throws Exception {
        try (HeldOperations anonymous = hold(AdmissionRules.DEFAULT_KEYLESS_KEY, 2)) {
            QueuedRequests requests = new QueuedRequests(registry.template("tenants").gate());
            CompletableFuture<HttpResponse<String>> first = requests.queued(request(null, "rotating-" + System.nanoTime()));
            CompletableFuture<HttpResponse<String>> second = requests.queued(request(null, "rotating-" + System.nanoTime()));

            CompletableFuture<HttpResponse<String>> initech = requests.send(request("initech", null));

            assertThat(second.get(1, TimeUnit.MINUTES).body()).as("no principal: one flow, whatever the headers")
                    .contains("\"reason\":\"OVER_FAIR_SHARE\"");
            anonymous.close();
            assertThat(initech.get(1, TimeUnit.MINUTES).statusCode()).as("the victim gets its place").isEqualTo(200);
            assertThat(first.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
        }
    }

    private HeldOperations hold(String key, int count) throws Exception {
        return HeldOperations.hold(registry.template("tenants"), count, OperationClass.of(Criticality.DEFAULT, key));
    }

    private HttpRequest request(@Nullable String user, @Nullable String tenantHeader) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/tenants")).GET();
        if (user != null) {
            request.header("X-User", user);
        }
        if (tenantHeader != null) {
            request.header("X-Tenant", tenantHeader);
        }
        return request.build();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({OperationClassOverHttpTests.TenantApplication.Tenants.class,
            OperationClassOverHttpTests.TenantApplication.Checkout.class,
            OperationClassOverHttpTests.TenantApplication.Api.class, HeaderPrincipal.class})
    static class AuthenticatedApplication {
    }
}
