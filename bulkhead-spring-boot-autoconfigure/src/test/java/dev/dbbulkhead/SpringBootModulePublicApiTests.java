package dev.dbbulkhead;

import dev.dbbulkhead.testing.PublicApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Every change to the Spring Boot module's public surface shows in review, as a change of the committed listing.
 * The listing covers the auto-configuration packages too, although they are not API: a type made public there
 * shows as well.
 */
class SpringBootModulePublicApiTests {

    @Test
    void theSpringBootModulesPublicApiIsTheCommittedListing() {
        PublicApi.assertMatchesCommittedListing(Path.of("target", "classes"),
                Path.of("..", "api", "bulkhead-spring-boot-autoconfigure.txt"));
    }
}
