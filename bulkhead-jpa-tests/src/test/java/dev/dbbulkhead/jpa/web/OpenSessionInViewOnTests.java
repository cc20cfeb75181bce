package dev.dbbulkhead.jpa.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Boot's default, open-session-in-view on: the request keeps its connection after the gate's commit, so B does not
 * bound the pool's active connections; the start-up budget check says so and names the fix.
 */
class OpenSessionInViewOnTests extends OpenSessionInViewApplication {

    @Test
    void aRequestKeepsItsConnectionAfterTheAdmittedMethodReturnedItsPermit() throws Exception {
        assertThat(activeConnectionsWhileARequestIsHeldAfterItsPermitIsBack()).isEqualTo(1);
    }

    @Test
    void theEndpointShowsTheOpenSessionInViewFindingNamingTheFix() throws Exception {
        JsonNode findings = budgetFindings();

        assertThat(findings.valueStream().filter(finding -> finding.get("kind").asString()
                .equals("OPEN_SESSION_IN_VIEW")).map(finding -> finding.get("message").asString()))
                .singleElement().asString()
                .contains("openEntityManagerInViewInterceptor", "spring.jpa.open-in-view=false");
    }

    /** The measurement of docs/how-to/jpa-and-open-session-in-view.md: lazy associations serialised after the method returned. */
    @Test
    void underLoadEveryRequestIsAnsweredAndTheHighestActiveCountIsWrittenDown() throws Exception {
        long id = catalogue.place("grace", "lamp", 1);

        BoundedLoad.Figures lazy = BoundedLoad.run(http, uri("/orders/" + id), 32, 50, pool(), GATED);

        assertThat(lazy.ok() + lazy.rejected()).isEqualTo(lazy.requests());
        Files.writeString(Path.of("target", "open-session-in-view-on.txt"),
                lazy.describe("open-in-view=true, lazy associations serialised after return", GATED) + "\n");
    }
}
