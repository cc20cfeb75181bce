package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.ApplicationTestSupport;
import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code db.bulkhead.request-class.key-from-principal=true} over real HTTP, on PostgreSQL, with no resolver bean: the
 * key is the authenticated principal's name, whatever header a client sends, and an anonymous client is one flow with
 * every other. A filter ahead of every other stands for authentication (its {@code X-User} header names the
 * principal). Workload {@code tenants}: B = 4, Q = 0, fair shares.
 */
@SpringBootTest(classes = KeyFromPrincipalOverHttpTests.AuthenticatedApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.request-class.key-from-principal=true",
                "db.bulkhead.workloads.tenants.max-concurrent=4",
                "db.bulkhead.workloads.tenants.fair-share.enabled=true",
                "db.bulkhead.workloads.checkout.max-concurrent=1"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
// A context of its own, closed after the class: its pool's connections go back to the shared server.
@DirtiesContext
class KeyFromPrincipalOverHttpTests {

    private final HttpClient http = HttpClient.newHttpClient();

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
        try (HeldOperations acme = hold("acme", 2); HeldOperations globex = hold("globex", 1)) {
            HttpResponse<String> refused = get("acme", "globex");
            assertThat(refused.statusCode()).as("acme's share, whatever X-Tenant says").isEqualTo(503);
            assertThat(refused.body()).contains("\"reason\":\"OVER_FAIR_SHARE\"");

            assertThat(get("globex", "acme").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void anonymousRequestsAreOneFlowHeldToOneShare() throws Exception {
        try (HeldOperations anonymous = hold(AdmissionRules.DEFAULT_KEYLESS_KEY, 2); HeldOperations acme = hold("acme", 1)) {
            HttpResponse<String> refused = get(null, "rotating-" + System.nanoTime());
            assertThat(refused.statusCode()).as("no principal: the keyless flow's share of 2 is taken").isEqualTo(503);
            assertThat(refused.body()).contains("\"reason\":\"OVER_FAIR_SHARE\"");

            assertThat(get("acme", null).statusCode()).as("the victim gets its share").isEqualTo(200);
        }
    }

    /**
     * A key refused keeps claiming its share for two epochs of B + Q keyed admissions: eight admissions of a key of
     * their own let the next test start with no claim of this one's.
     */
    @org.junit.jupiter.api.AfterEach
    void theRefusedKeysOfThisTestAreForgotten() {
        try (OperationClass.Scope bound = OperationClass.of(Criticality.DEFAULT, "between-tests").bind()) {
            for (int i = 0; i < 2 * 4; i++) {
                registry.template("tenants").execute(status -> 1);
            }
        }
    }

    private HeldOperations hold(String key, int count) throws Exception {
        return HeldOperations.hold(registry.template("tenants"), count, OperationClass.of(Criticality.DEFAULT, key));
    }

    private HttpResponse<String> get(@Nullable String user, @Nullable String tenantHeader) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/tenants")).GET();
        if (user != null) {
            request.header("X-User", user);
        }
        if (tenantHeader != null) {
            request.header("X-Tenant", tenantHeader);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({OperationClassOverHttpTests.TenantApplication.Tenants.class,
            OperationClassOverHttpTests.TenantApplication.Checkout.class,
            OperationClassOverHttpTests.TenantApplication.Api.class})
    static class AuthenticatedApplication {

        /** Stands for authentication: the request's principal is the user its X-User header names. */
        @Bean
        FilterRegistrationBean<Filter> authentication() {
            Filter authenticate = (request, response, chain) -> {
                String user = ((HttpServletRequest) request).getHeader("X-User");
                chain.doFilter(user == null ? request : new HttpServletRequestWrapper((HttpServletRequest) request) {
                    @Override
                    public Principal getUserPrincipal() {
                        return () -> user;
                    }
                }, response);
            };
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(authenticate);
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
            return registration;
        }
    }
}
