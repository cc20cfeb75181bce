package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.ApplicationTestSupport;
import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.web.servlet.BulkheadKeyResolver;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Keys from the request's principal over real HTTP, on PostgreSQL: the application's {@link BulkheadKeyResolver} bean
 * is {@link BulkheadKeyResolver#principal()}, and a filter ahead of every other stands for authentication, giving
 * each request the principal its {@code X-User} header names (no security framework needed). Workload
 * {@code tenants}: B = 2, Q = 2, fair shares; the key header configured too, which the bean overrides.
 */
@SpringBootTest(classes = PrincipalKeysOverHttpTests.PrincipalApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.request-class.key-header=X-Tenant",
                "db.bulkhead.workloads.tenants.max-concurrent=2",
                "db.bulkhead.workloads.tenants.max-queued=2",
                "db.bulkhead.workloads.tenants.queue-wait=1m",
                "db.bulkhead.workloads.tenants.fair-share.enabled=true",
                "db.bulkhead.workloads.checkout.max-concurrent=1"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
// A context of its own, closed after the class: its pool's connections go back to the shared server.
@DirtiesContext
class PrincipalKeysOverHttpTests {

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        ApplicationTestSupport.sharedDatabase(properties);
    }

    @Test
    void thePrincipalsKeyNotTheHeadersDecidesWhichWaiterGivesItsPlace() throws Exception {
        try (HeldOperations acme = HeldOperations.hold(registry.template("tenants"), 2,
                OperationClass.of(Criticality.DEFAULT, "acme"))) {
            QueuedRequests requests = new QueuedRequests(registry.template("tenants").gate());
            CompletableFuture<HttpResponse<String>> acmeFirst = requests.queued(request("acme", "globex"));
            CompletableFuture<HttpResponse<String>> acmeSecond = requests.queued(request("acme", "globex"));

            CompletableFuture<HttpResponse<String>> globex = requests.send(request("globex", "acme"));

            HttpResponse<String> displaced = acmeSecond.get(1, TimeUnit.MINUTES);
            assertThat(displaced.statusCode()).as("the principal's key, not the header's").isEqualTo(503);
            assertThat(displaced.body()).contains("\"reason\":\"OVER_FAIR_SHARE\"");
            acme.close();
            assertThat(globex.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
            assertThat(acmeFirst.get(1, TimeUnit.MINUTES).statusCode()).isEqualTo(200);
        }
    }

    private HttpRequest request(String user, String tenantHeader) {
        return HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/tenants"))
                .header("X-User", user).header("X-Tenant", tenantHeader).GET().build();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({OperationClassOverHttpTests.TenantApplication.Tenants.class,
            OperationClassOverHttpTests.TenantApplication.Checkout.class,
            OperationClassOverHttpTests.TenantApplication.Api.class, HeaderPrincipal.class})
    static class PrincipalApplication {

        @Bean
        BulkheadKeyResolver tenantKeys() {
            return BulkheadKeyResolver.principal();
        }
    }
}
