package dev.dbbulkhead.test.slice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.jdbc.ungated.UngatedConnectionException;
import dev.dbbulkhead.test.AutoConfigureDbBulkhead;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * A {@code @JdbcTest} slice that opts in with {@link AutoConfigureDbBulkhead}, in {@code fail} mode on real
 * PostgreSQL: the loader that borrows outside every gate is refused and named, the gated path runs, and the test's
 * own transaction (in the test below that has one) is not taken for ungated work.
 */
@JdbcTest(properties = {"db.bulkhead.ungated.mode=fail", "db.bulkhead.workloads.owners.max-concurrent=2"})
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
@AutoConfigureDbBulkhead
@Import({OwnerLoader.class, GatedOwners.class})
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class JdbcSliceWithTheStarterTests {

    private static final TestDatabase DATABASE = PostgresFixture.freshSchema();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> DATABASE.server().jdbcUrl());
        registry.add("spring.datasource.username", () -> DATABASE.server().username());
        registry.add("spring.datasource.password", () -> DATABASE.server().password());
    }

    @Autowired
    OwnerLoader loader;

    @Autowired
    GatedOwners gated;

    @Test
    @Transactional(propagation = Propagation.NOT_SUPPORTED)
    void theLoaderThatBorrowsOutsideEveryGateIsRefusedAndNamedByItsOwnClassAndMethod() {
        Throwable refused = catchThrowable(loader::ownerName);

        assertThat(refused).rootCause().isInstanceOf(UngatedConnectionException.class);
        UngatedConnectionException ungated = (UngatedConnectionException) refused.getCause();
        assertThat(ungated.callSite().className()).isEqualTo(OwnerLoader.class.getName());
        assertThat(ungated.callSite().methodName()).isEqualTo("ownerName");
        assertThat(ungated.callSite().application()).as("found from the application's package").isTrue();
        assertThat(gated.ownerName()).isEqualTo("ada");
    }

    @Test
    void theTestsOwnTransactionIsNotTakenForUngatedWork() {
        assertThat(loader.ownerName()).as("joins the test's transaction, begun outside the gates by design")
                .isEqualTo("ada");
    }
}
