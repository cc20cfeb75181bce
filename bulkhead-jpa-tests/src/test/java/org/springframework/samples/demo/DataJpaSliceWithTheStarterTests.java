package org.springframework.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.jdbc.ungated.UngatedConnectionException;
import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.test.AutoConfigureDbBulkhead;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * A {@code @DataJpaTest} slice on the {@code JpaTransactionManager}, opted in with {@link AutoConfigureDbBulkhead},
 * in {@code fail} mode: outside a test-managed transaction the formatter that loads outside every gate is refused and
 * named; inside one (the slice's default) the transaction the test framework begins is recognised, not refused.
 */
@DataJpaTest(properties = "db.bulkhead.ungated.mode=fail")
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
@AutoConfigureDbBulkhead
@Import(OwnerFormatter.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class DataJpaSliceWithTheStarterTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    OwnerFormatter formatter;

    @Autowired
    DemoOwnerRepository owners;

    @Test
    @Transactional(propagation = Propagation.NOT_SUPPORTED)
    void outsideATestTransactionTheFormatterThatLoadsOutsideEveryGateIsRefusedAndNamed() {
        Throwable refused = catchThrowable(() -> formatter.parse("ada", Locale.ROOT));

        assertThat(refused).rootCause().isInstanceOf(UngatedConnectionException.class);
        Throwable cause = refused;
        while (!(cause instanceof UngatedConnectionException)) {
            cause = cause.getCause();
        }
        UngatedConnectionException ungated = (UngatedConnectionException) cause;
        assertThat(ungated.callSite().className()).isEqualTo(OwnerFormatter.class.getName());
        assertThat(ungated.callSite().methodName()).isEqualTo("parse");
        assertThat(ungated.callSite().application()).isTrue();
    }

    @Test
    void insideTheSlicesTestTransactionTheRepositoryWorksAsWithoutTheStarter() {
        String name = "grace-" + UUID.randomUUID();

        owners.save(new DemoOwner(name));

        assertThat(formatter.parse(name, Locale.ROOT).getName()).isEqualTo(name);
    }
}
