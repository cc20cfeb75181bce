package dev.dbbulkhead.clinic;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ModelAttribute;
import tools.jackson.databind.JsonNode;

/**
 * The clinic with one loader added that nobody gated, as the ungated-work report is meant to find it: in the
 * tests' {@code fail} mode its borrow is refused, so the page it runs for fails (500) while the rest of the
 * clinic answers, and its call site is named in the log and listed in the {@code dbbulkheads} endpoint.
 */
@Import(ForgottenLoaderTests.VisitsToday.class)
@ExtendWith(OutputCaptureExtension.class)
class ForgottenLoaderTests extends ClinicTest {

    private static final String CALL_SITE = VisitsToday.class.getName() + ".visitsToday(";

    @Test
    void aLoaderNobodyGatedFailsItsPageInFailModeAndIsNamedInTheLogAndTheEndpoint(CapturedOutput output)
            throws Exception {
        Owner owner = ownerWithPet("Forgotten", "Leo");

        HttpResponse<String> vets = client.get("/vets.html");

        assertThat(vets.statusCode()).as("the vets page, whose loader borrows outside the gates").isEqualTo(500);
        assertThat(client.get("/owners/" + owner.getId()).statusCode()).as("a page of the gated repositories")
                .isEqualTo(200);
        JsonNode pool = client.bulkheads().get("ungated").get("pools").get("dataSource");
        assertThat(pool.get("callSites")).as(pool.toString()).singleElement().satisfies(site -> {
            assertThat(site.get("site").asString()).startsWith(CALL_SITE);
            assertThat(site.get("connections").asLong()).isOne();
        });
        assertThat(output).contains("outside every gate by " + CALL_SITE, "UngatedConnectionException");
    }

    /**
     * A loader someone added to the vets page: today's visits, counted with a {@code JdbcClient} that no gate
     * admits, before the cached list is even asked.
     */
    @ControllerAdvice(assignableTypes = VetController.class)
    static class VisitsToday {

        private final JdbcClient jdbc;

        VisitsToday(JdbcClient jdbc) {
            this.jdbc = jdbc;
        }

        @ModelAttribute("visitsToday")
        long visitsToday() {
            return jdbc.sql("SELECT count(*) FROM visits WHERE visit_date = current_date").query(Long.class).single();
        }
    }
}
