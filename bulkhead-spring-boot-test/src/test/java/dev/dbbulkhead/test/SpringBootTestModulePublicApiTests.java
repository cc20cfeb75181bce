package dev.dbbulkhead.test;

import dev.dbbulkhead.testing.PublicApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Every change to the test module's public surface shows in review, as a change of the committed listing. */
class SpringBootTestModulePublicApiTests {

    @Test
    void theTestModulesPublicApiIsTheCommittedListing() {
        PublicApi.assertMatchesCommittedListing(Path.of("target", "classes"),
                Path.of("..", "api", "bulkhead-spring-boot-test.txt"));
    }
}
