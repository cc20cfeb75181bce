package dev.dbbulkhead.clinic;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The clinic in {@code db.bulkhead.ungated.mode=fail}, as an application's own test suite runs it: every page and
 * form answers, and the {@code dbbulkheads} endpoint lists nothing borrowed outside the gates — not in this test,
 * nor in any other test of this application context (the endpoint counts from start-up).
 */
class ClinicInFailModeTests extends ClinicTest {

    @Test
    void everyPageAndFormIsAnsweredAndNothingWasBorrowedOutsideTheGates() throws Exception {
        ClinicLoad.Patient patient = ClinicLoad.Patient.of(ownerWithPet("Clean", "Leo"), "clean");
        ownerWithPet("Clean", "Basil"); // two owners found: the search lists them rather than redirecting to one

        for (ClinicLoad.Page page : ClinicPages.ALL) {
            assertThat(page.request().send(client, patient, 0).statusCode()).as(page.name()).isEqualTo(page.answered());
        }

        JsonNode ungated = client.bulkheads().get("ungated");
        assertThat(ungated.get("mode").asString()).isEqualTo("fail");
        JsonNode pool = ungated.get("pools").get("dataSource");
        assertThat(pool.get("connections").asLong()).as(pool.toString()).isZero();
        assertThat(pool.get("callSites")).as(pool.toString()).isEmpty();
        assertThat(pool.get("otherCallSites").asLong()).isZero();
    }
}
