package dev.dbbulkhead;

import dev.dbbulkhead.testing.PublicApi;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Every change to the core's public surface shows in review, as a change of the committed listing. */
class PublicApiTests {

    @Test
    void theCoresPublicApiIsTheCommittedListing() {
        PublicApi.assertMatchesCommittedListing(Path.of("target", "classes"),
                Path.of("..", "api", "bulkhead-core.txt"));
    }
}
