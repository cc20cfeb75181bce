package dev.dbbulkhead.autoconfigure.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.gate.GateSaturation;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.format.Formatter;
import org.springframework.format.FormatterRegistry;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * A refusal while a Thymeleaf view renders, as in Spring PetClinic's pet form: a formatter, called by the template for
 * each option of a {@code <select>}, runs a gated lookup. The browser gets the 503, and the log at most one line.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class ViewRenderingRefusalTests {

    private final HttpClient http = HttpClient.newHttpClient();
    private ConfigurableApplicationContext context;
    private int port;

    @BeforeEach
    void start() {
        context = new SpringApplicationBuilder(PetFormApplication.class)
                .properties(SharedDatabase.dataSourceProperties())
                .run("--server.port=0", "--spring.thymeleaf.prefix=classpath:/view-rendering/");
        port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    @AfterEach
    void stop() {
        context.close();
    }

    @Test
    void aRefusalInsideAFormatterCalledByTheTemplateIsAnswered503AndLogsAtMostOneLine(CapturedOutput output)
            throws Exception {
        HttpResponse<String> rendered = getPage();
        assertThat(rendered.statusCode()).isEqualTo(200);
        assertThat(rendered.body()).contains("<option value=\"cat\">cat</option>");
        BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");

        int before = output.getAll().length();
        HttpResponse<String> refused;
        try (GateSaturation saturated = orders.gate().saturate()) {
            refused = getPage();
        }
        String logged = output.getAll().substring(before);

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(logged.lines().count()).as("logged during the refused request:%n%s", logged).isLessThanOrEqualTo(1);
    }

    private HttpResponse<String> getPage() throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/pets/new"))
                .header("Accept", "text/html").build(), HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({PetForm.class, PetTypes.class})
    static class PetFormApplication {
    }

    /** The kind of a pet, shown in the form by its name. */
    record PetType(String name) {
    }

    @Controller
    static class PetForm {

        @GetMapping("/pets/new")
        String form(Model model) {
            model.addAttribute("types", List.of(new PetType("cat"), new PetType("dog")));
            return "pet-form";
        }
    }

    /** Formats a pet type with a gated lookup, as an application's formatter that reads the database does. */
    static class PetTypes implements WebMvcConfigurer, Formatter<PetType> {

        private final BulkheadRegistry registry;

        PetTypes(BulkheadRegistry registry) {
            this.registry = registry;
        }

        @Override
        public void addFormatters(FormatterRegistry formatters) {
            formatters.addFormatter(this);
        }

        @Override
        public String print(PetType type, Locale locale) {
            return registry.template("orders").execute(status -> type.name());
        }

        @Override
        public PetType parse(String text, Locale locale) {
            return new PetType(text);
        }
    }
}
