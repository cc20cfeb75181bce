package dev.dbbulkhead.jpa.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jpa.FullGate;
import dev.dbbulkhead.jpa.JpaTestApplication;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.convert.converter.Converter;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Controller;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.View;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A rejection is a 503 with {@code Retry-After} however it surfaces in Spring MVC: past an application's catch-all
 * {@code @ExceptionHandler(Exception.class)}, and while a view renders; browsers get Boot's HTML error page for
 * 503, API clients problem details; an application's own handler for rejections still answers. Workload
 * {@code pages}: B=1, Q=0, Retry-After 2s without jitter.
 */
@SpringBootTest(classes = {JpaTestApplication.class, RejectionAnswerTests.Pages.class,
        RejectionAnswerTests.Api.class, RejectionAnswerTests.OwnHandling.class, RejectionAnswerTests.OwnAdvised.class,
        RejectionAnswerTests.OwnRejectionAdvice.class, RejectionAnswerTests.Rendered.class,
        RejectionAnswerTests.CatchAll.class, RejectionAnswerTests.WholeController.class,
        RejectionAnswerTests.CountingConverter.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"db.bulkhead.workloads.pages.max-concurrent=1", "db.bulkhead.workloads.pages.max-queued=0",
                "db.bulkhead.workloads.pages.retry-after=2s",
                // Exactly 2s in every answer: what is checked is where the answer is made, not its jitter.
                "db.bulkhead.workloads.pages.retry-after-jitter=0s"})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class RejectionAnswerTests {

    private static final String BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    private static final String API = "application/json";

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    private final HttpClient http = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @Test
    void aRejectionIsA503WithRetryAfterAndProblemDetailsDespiteTheApplicationsCatchAllHandler() throws Exception {
        assertThat(get("/api/customers", API).body()).as("the gate has room").isEqualTo("counted");

        HttpResponse<String> response = getWhileFull("/api/customers", API);

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode problem = JsonMapper.builder().build().readTree(response.body());
        assertThat(problem.get("workload").asString()).isEqualTo("pages");
        assertThat(problem.get("reason").asString()).isEqualTo("ADMISSION_FULL");
        assertThat(problem.get("instance").asString()).isEqualTo("/api/customers");
    }

    @Test
    void aRejectionWhileAConverterBindsAnArgumentIsA503DespiteTheCatchAll() throws Exception {
        assertThat(get("/api/counted/ada", API).body()).as("the gate has room").isEqualTo("ada counted");

        HttpResponse<String> response = getWhileFull("/api/counted/ada", API);

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(response.body()).contains("\"workload\":\"pages\"");
    }

    @Test
    void theCatchAllHandlerStillAnswersEverythingElse() throws Exception {
        HttpResponse<String> response = get("/api/broken", API);

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body()).isEqualTo("catch-all: IllegalStateException");
    }

    @Test
    void aBrowserGetsBootsHtmlErrorPageFor503WithRetryAfter() throws Exception {
        HttpResponse<String> response = getWhileFull("/api/customers", BROWSER);

        assertHtml503(response);
    }

    /** In the controller itself, or in an advice that MVC asks before the catch-all. */
    @ParameterizedTest
    @CsvSource({"/own/customers, own handler: pages", "/advised/customers, own advice: pages"})
    void anApplicationsOwnHandlerForRejectionsStillWins(String path, String answer) throws Exception {
        HttpResponse<String> response = getWhileFull(path, API);

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.body()).isEqualTo(answer);
    }

    @Test
    void aRejectionWhileAViewRendersIsBootsHtml503ForABrowser() throws Exception {
        assertThat(get("/rendered", BROWSER).body()).as("the gate has room")
                .isEqualTo("<p>half a page, then counted</p>");

        HttpResponse<String> response = getWhileFull("/rendered", BROWSER);

        assertHtml503(response);
        assertThat(response.body()).doesNotContain("half a page");
    }

    @Test
    void aRejectionWhileAViewRendersIsA503ProblemForAnApiClient() throws Exception {
        HttpResponse<String> response = getWhileFull("/rendered", API);

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(response.body()).contains("\"workload\":\"pages\"", "\"instance\":\"/rendered\"")
                .doesNotContain("half a page");
    }

    @Test
    void aTypeLevelDbBulkheadOnAControllerGatesItsHandlersButNotMvcsCallbacks() throws Exception {
        assertThat(get("/whole?page=2", API).body())
                .isEqualTo("init-binder in transaction: false, model-attribute in transaction: false,"
                        + " handler in transaction: true, page 2");
        HttpResponse<String> failed = get("/whole/broken", API);
        assertThat(failed.statusCode()).isEqualTo(400);
        assertThat(failed.body()).isEqualTo("exception-handler in transaction: false");

        HttpResponse<String> rejected = getWhileFull("/whole", API);
        assertThat(rejected.statusCode()).as("the handler itself is still gated").isEqualTo(503);
    }

    private static void assertHtml503(HttpResponse<String> response) {
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/html"));
        // db-bulkhead's page, as no error/503 view is on the class path: what to do, not Boot's error page.
        assertThat(response.body()).contains("Service busy", "Please try again in 2 seconds.")
                .doesNotContain("Whitelabel");
    }

    private HttpResponse<String> getWhileFull(String path, String accept) throws Exception {
        try (FullGate full = FullGate.of(registry.template("pages"))) {
            return get(path, accept);
        }
    }

    private HttpResponse<String> get(String path, String accept) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).header("Accept", accept)
                .GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The gated entry of every page. */
    @Service
    static class Pages {

        private final CustomerRepository customers;

        Pages(CustomerRepository customers) {
            this.customers = customers;
        }

        @DbBulkhead("pages")
        public String customers() {
            customers.count();
            return "counted";
        }
    }

    @RestController
    @RequestMapping("/api")
    static class Api {

        private final Pages pages;

        Api(Pages pages) {
            this.pages = pages;
        }

        @GetMapping("/customers")
        String customers() {
            return pages.customers();
        }

        /** The argument is converted by a converter that calls the gated method. */
        @GetMapping("/counted/{name}")
        String counted(@PathVariable("name") Counted counted) {
            return counted.name() + " " + counted.count();
        }

        @GetMapping("/broken")
        String broken() {
            throw new IllegalStateException("broken");
        }
    }

    /** The same pages under /own, in a controller that answers rejections itself, in a method of its own. */
    @RestController
    @RequestMapping("/own")
    static class OwnHandling extends Api {

        OwnHandling(Pages pages) {
            super(pages);
        }

        @ExceptionHandler(BulkheadRejectedException.class)
        ResponseEntity<String> rejected(BulkheadRejectedException rejection) {
            return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).body("own handler: " + rejection.workload());
        }
    }

    /** The same pages under /advised, whose rejections an advice of the application answers. */
    @RestController
    @RequestMapping("/advised")
    static class OwnAdvised extends Api {

        OwnAdvised(Pages pages) {
            super(pages);
        }
    }

    /** An application's advice for rejections, ordered before its catch-all so that MVC picks it. */
    @RestControllerAdvice(assignableTypes = OwnAdvised.class)
    @Order(Ordered.HIGHEST_PRECEDENCE)
    static class OwnRejectionAdvice {

        @ExceptionHandler(BulkheadRejectedException.class)
        ResponseEntity<String> rejected(BulkheadRejectedException rejection) {
            return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).body("own advice: " + rejection.workload());
        }
    }

    /** A page whose view calls the gated method while it renders, as a template or a formatter does. */
    @Controller
    static class Rendered {

        private final Pages pages;

        Rendered(Pages pages) {
            this.pages = pages;
        }

        @GetMapping("/rendered")
        ModelAndView rendered() {
            View view = new View() {
                @Override
                public String getContentType() {
                    return "text/html";
                }

                @Override
                public void render(Map<String, ?> model, HttpServletRequest request, HttpServletResponse response)
                        throws IOException {
                    response.setContentType(getContentType());
                    response.getWriter().write("<p>half a page, then ");
                    response.getWriter().write(pages.customers() + "</p>");
                }
            };
            return new ModelAndView(view);
        }
    }

    /**
     * A controller annotated as a whole, as users write it when its handlers call repositories directly: its
     * handlers are gated, MVC's callbacks around them are not. Each callback notes whether it ran in a transaction.
     */
    @RestController
    @DbBulkhead("pages")
    public static class WholeController {

        @InitBinder
        public void binder(WebDataBinder binder, HttpServletRequest request) {
            request.setAttribute("init-binder", inTransaction());
        }

        @ModelAttribute
        public void model(HttpServletRequest request) {
            request.setAttribute("model-attribute", inTransaction());
        }

        @GetMapping("/whole")
        public String handle(@RequestParam(defaultValue = "1") int page, HttpServletRequest request) {
            return "init-binder in transaction: " + request.getAttribute("init-binder")
                    + ", model-attribute in transaction: " + request.getAttribute("model-attribute")
                    + ", handler in transaction: " + inTransaction() + ", page " + page;
        }

        @GetMapping("/whole/broken")
        public String broken() {
            throw new IllegalArgumentException("broken");
        }

        @ExceptionHandler(IllegalArgumentException.class)
        public ResponseEntity<String> badRequest(IllegalArgumentException failure) {
            return ResponseEntity.badRequest().body("exception-handler in transaction: " + inTransaction());
        }

        private static boolean inTransaction() {
            return TransactionSynchronizationManager.isActualTransactionActive();
        }
    }

    /** A path variable as the converter makes it: the name, with what the gated method counted. */
    record Counted(String name, String count) {
    }

    /** A converter that calls a gated method, as a formatter looking up an entity does. */
    @Component
    static class CountingConverter implements Converter<String, Counted> {

        private final Pages pages;

        CountingConverter(Pages pages) {
            this.pages = pages;
        }

        @Override
        public Counted convert(String name) {
            return new Counted(name, pages.customers());
        }
    }

    /** The catch-all most applications have: every exception becomes a 500 of their own. */
    @RestControllerAdvice
    static class CatchAll {

        @ExceptionHandler(Exception.class)
        ResponseEntity<String> any(Exception failure) {
            return ResponseEntity.internalServerError().body("catch-all: " + failure.getClass().getSimpleName());
        }
    }
}
