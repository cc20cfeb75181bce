package dev.dbbulkhead.jpa.advisors;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.jpa.FullGate;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/** {@code db.bulkhead.advisor-order} at the highest precedence puts admission first, outside every other advisor. */
@TestPropertySource(properties = "db.bulkhead.advisor-order=-2147483648")
class OutermostAdvisorOrderTests extends AdvisedApplication {

    @Test
    void theGateAnswersBeforeAuthorisationValidationAndTheCache() throws Exception {
        signIn("VISITOR");
        clerk.cached("hit");
        try (FullGate full = fullGate()) {
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(clerk::guarded);
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(() -> clerk.validated(0));
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(() -> clerk.cached("hit"));
        }
    }
}
