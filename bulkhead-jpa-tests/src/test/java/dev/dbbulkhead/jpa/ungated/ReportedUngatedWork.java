package dev.dbbulkhead.jpa.ungated;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import tools.jackson.databind.JsonNode;

/**
 * In the default mode, {@code warn}: every request is answered, and each call site that borrowed outside the gate
 * is reported — in the endpoint with all its borrows, in the meter, in one warning — while the gated handlers are
 * not; what start-up borrowed was recognised infrastructure.
 */
abstract class ReportedUngatedWork extends UngatedWorkApplication {

    @Autowired
    MeterRegistry meters;

    /** The rule that recognises what this data access borrows while the application starts. */
    abstract String startUpInfrastructure();

    @Test
    void eachCallSiteThatBorrowsBeforeOrWithoutTheGateIsReportedOnceWithAllItsBorrowsAndNoGatedHandlerIs(
            CapturedOutput output) throws Exception {
        Map<String, List<Integer>> statuses = askEveryPathAtOnce();

        statuses.forEach((path, answers) -> assertThat(answers).as(path).hasSize(REQUESTS).containsOnly(200));
        Map<String, Long> sites = callSites(ungatedSection());
        List<String> expected = PATHS.values().stream().filter(Objects::nonNull).toList();
        assertThat(sites).as("one entry per ungated call site, none for a gated handler").hasSize(expected.size());
        for (String site : expected) {
            assertThat(sites).as(site).hasEntrySatisfying(key(sites, site), count -> assertThat(count)
                    .as("every request on its path borrowed there once").isEqualTo(REQUESTS));
            assertThat(output.getAll().split("outside every gate by " + Pattern.quote(site), -1))
                    .as("one warning for " + site).hasSize(2);
        }
        assertThat(meters.get("db.bulkhead.ungated.connections").tag("pool", "dataSource").functionCounter().count())
                .isEqualTo((double) REQUESTS * expected.size());
    }

    @Test
    void whatStartUpBorrowedOutsideTheGatesWasRecognisedInfrastructure() throws Exception {
        JsonNode ungated = ungatedSection();
        JsonNode pool = primaryPool(ungated);

        assertThat(ungated.get("mode").asString()).isEqualTo("warn");
        assertThat(pool.get("recognised").has(startUpInfrastructure())).as(pool.toString()).isTrue();
    }

    /** The one listed site that starts with {@code prefix}. */
    static String key(Map<String, Long> sites, String prefix) {
        List<String> matching = sites.keySet().stream().filter(site -> site.startsWith(prefix)).toList();
        assertThat(matching).as("sites starting with " + prefix + " among " + sites.keySet()).hasSize(1);
        return matching.get(0);
    }
}
