package dev.dbbulkhead.jpa.ungated;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.test.context.TestPropertySource;

/**
 * In {@code fail} mode, as a test suite would run it: the application starts (what start-up borrows outside the
 * gates is recognised infrastructure), every request whose path borrows outside the gate fails — a 500 from the
 * loader and the controller, a 400 from the converter, as MVC answers a failed conversion — and the gated path is
 * answered.
 */
@TestPropertySource(properties = "db.bulkhead.ungated.mode=fail")
abstract class RefusedUngatedWork extends UngatedWorkApplication {

    @Test
    void everyRequestThatBorrowsOutsideTheGateFailsNamingItsCallSiteAndTheGatedOneIsAnswered(CapturedOutput output)
            throws Exception {
        Map<String, List<Integer>> statuses = askEveryPathAtOnce();

        PATHS.forEach((path, site) -> assertThat(statuses.get(path)).as(path).hasSize(REQUESTS)
                .allSatisfy(status -> assertThat(status >= 400).as("failed: " + status).isEqualTo(site != null)));
        Map<String, Long> sites = callSites(ungatedSection());
        PATHS.values().stream().filter(site -> site != null).forEach(site -> {
            assertThat(sites.get(ReportedUngatedWork.key(sites, site))).as("refused borrows are counted")
                    .isEqualTo(REQUESTS);
            assertThat(output).contains("outside every gate by " + site);
        });
        assertThat(output).contains("UngatedConnectionException", "Refused, as db.bulkhead.ungated.mode=fail asks.");
        assertThat(ungatedSection().get("mode").asString()).isEqualTo("fail");
    }
}
