package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.HeldOperations;
import dev.dbbulkhead.autoconfigure.WebApplicationTestSupport;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.webmvc.autoconfigure.error.ErrorViewResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.servlet.ModelAndView;

/**
 * A browser refused while the application has an error view of its own for 503 gets that view, rendered by Boot's
 * error handling, with {@code Retry-After}; an application whose only error page is the generic one (Boot's
 * {@code error} view, as Spring PetClinic has) gets db-bulkhead's page instead. Thymeleaf is on the test class path.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class OwnErrorViewTests {

    @Nested
    @TestPropertySource(properties = "spring.thymeleaf.prefix=classpath:/own-error-views/template/")
    class AnErrorTemplateFor503 extends WebApplicationTestSupport {

        @Test
        void answersTheBrowserWithTheRetryAfterOfTheWorkload() throws Exception {
            assertAnsweredWithOwnView(refusedBrowser(this, registry),
                    "The application's own page for status <span>503</span>.");
        }
    }

    @Nested
    @TestPropertySource(properties = "spring.web.resources.static-locations=classpath:/own-error-views/static/")
    class AStaticErrorPageFor503 extends WebApplicationTestSupport {

        @Test
        void answersTheBrowserWithTheRetryAfterOfTheWorkload() throws Exception {
            assertAnsweredWithOwnView(refusedBrowser(this, registry), "The application's own static page for 503.");
        }
    }

    @Nested
    @Import(OwnResolver.class)
    class AnErrorViewResolverOfTheApplications extends WebApplicationTestSupport {

        @Test
        void answersTheBrowserWithTheViewItResolves() throws Exception {
            assertAnsweredWithOwnView(refusedBrowser(this, registry), "resolved by the application for 503");
        }
    }

    @Nested
    @TestPropertySource(properties = "spring.thymeleaf.prefix=classpath:/own-error-views/generic/")
    class OnlyAGenericErrorTemplate extends WebApplicationTestSupport {

        @Test
        void leavesTheBrowserToTheBusyPageThatSaysWhenToComeBack() throws Exception {
            HttpResponse<String> response = refusedBrowser(this, registry);

            String retryAfter = response.headers().firstValue("Retry-After").orElseThrow();
            assertThat(retryAfter).as("at least retry-after, at most twice it: the default jitter")
                    .isIn("3", "4", "5", "6");
            assertThat(response.body()).contains("Service busy", "Please try again in " + retryAfter + " seconds.")
                    .doesNotContain("Something happened");
        }
    }

    /** The application's own resolver: a view for 503 alone. */
    @Configuration(proxyBeanMethods = false)
    static class OwnResolver {

        @Bean
        ErrorViewResolver ownErrorViews() {
            return (request, status, model) -> status != HttpStatus.SERVICE_UNAVAILABLE ? null
                    : new ModelAndView((viewModel, viewRequest, viewResponse) -> {
                        viewResponse.setContentType("text/html;charset=UTF-8");
                        viewResponse.getOutputStream().write(("resolved by the application for "
                                + viewModel.get("status")).getBytes(StandardCharsets.UTF_8));
                    }, model);
        }
    }

    private static void assertAnsweredWithOwnView(HttpResponse<String> response, String own) {
        assertThat(response.headers().firstValue("Retry-After"))
                .as("at least retry-after, at most twice it: the default jitter")
                .hasValueSatisfying(seconds -> assertThat(seconds).isIn("3", "4", "5", "6"));
        assertThat(response.body()).contains(own).doesNotContain("Service busy");
    }

    /** A browser's GET of the reports workload while both its places are held: a 503 in HTML. */
    private static HttpResponse<String> refusedBrowser(WebApplicationTestSupport application,
                                                       BulkheadRegistry registry) throws Exception {
        HttpResponse<String> response;
        try (HeldOperations running = HeldOperations.hold(registry.template("reports"), 2)) {
            response = application.get("/workloads/reports", HttpApplicationTests.BROWSER);
        }
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
        return response;
    }
}
