package dev.dbbulkhead.jpa.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Open-session-in-view off, the fix the finding names: the connection goes back with the permit, and the pool's
 * active connections stay within Σ B at every sample under load. Lazy associations left for Jackson then fail
 * without a connection; loaded inside the admitted method, the response is whole.
 */
@TestPropertySource(properties = "spring.jpa.open-in-view=false")
class OpenSessionInViewOffTests extends OpenSessionInViewApplication {

    @Test
    void theConnectionGoesBackWithThePermit() throws Exception {
        assertThat(activeConnectionsWhileARequestIsHeldAfterItsPermitIsBack()).isZero();
    }

    @Test
    void theEndpointShowsNoOpenSessionInViewFinding() throws Exception {
        JsonNode findings = budgetFindings();

        assertThat(findings.valueStream().map(finding -> finding.get("kind").asString()))
                .isNotEmpty().doesNotContain("OPEN_SESSION_IN_VIEW");
    }

    /** The measurement of docs/how-to/jpa-and-open-session-in-view.md, both ways of writing the controller. */
    @Test
    void underLoadThePoolNeverHasMoreActiveConnectionsThanTheGatesAdmit() throws Exception {
        long id = catalogue.place("grace", "lamp", 1);

        // Fewer of these: each failure is logged with its stack trace, and one such answer is as telling as many.
        BoundedLoad.Figures lazy = BoundedLoad.run(http, uri("/orders/" + id), 8, 25, pool(), GATED);
        BoundedLoad.Figures loaded = BoundedLoad.run(http, uri("/orders/" + id + "/for-the-response"), 32, 50,
                pool(), GATED);

        assertThat(lazy.overBudget()).isZero();
        assertThat(lazy.maxActive()).isLessThanOrEqualTo(GATED);
        assertThat(lazy.errors()).as("every lazy association left for Jackson fails").isEqualTo(lazy.requests());
        assertThat(loaded.overBudget()).isZero();
        assertThat(loaded.maxActive()).isLessThanOrEqualTo(GATED);
        assertThat(loaded.ok() + loaded.rejected()).isEqualTo(loaded.requests());
        Files.writeString(Path.of("target", "open-session-in-view-off.txt"),
                lazy.describe("open-in-view=false, lazy associations serialised after return", GATED) + "\n"
                        + loaded.describe("open-in-view=false, loaded inside the admitted method", GATED) + "\n");
    }
}
