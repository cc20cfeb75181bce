package dev.dbbulkhead.jpa.advisors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.jpa.FullGate;
import jakarta.validation.ConstraintViolationException;
import org.junit.jupiter.api.Test;
import org.springframework.security.authorization.AuthorizationDeniedException;

/**
 * By default admission runs inside every other advisor: a call refused by authorisation or validation, or
 * answered from the cache, never takes a permit (it is answered while the gate is full), and every retry passes
 * the gate again in a transaction of its own.
 */
class DefaultAdvisorOrderTests extends AdvisedApplication {

    @Test
    void anUnauthorisedCallIsDeniedWithoutAPermitWhileAnAuthorisedOneIsAdmitted() throws Exception {
        signIn("VISITOR");
        try (FullGate full = fullGate()) {
            assertThatExceptionOfType(AuthorizationDeniedException.class).isThrownBy(clerk::guarded);
        }
        signIn("CLERK");
        try (FullGate full = fullGate()) {
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(clerk::guarded);
        }
        assertThat(clerk.guarded()).isNotNegative();
    }

    @Test
    void anInvalidCallIsRefusedWithoutAPermitWhileAValidOneIsAdmitted() throws Exception {
        try (FullGate full = fullGate()) {
            assertThatExceptionOfType(ConstraintViolationException.class).isThrownBy(() -> clerk.validated(0));
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(() -> clerk.validated(1));
        }
    }

    @Test
    void aCacheHitIsAnsweredWithoutAPermitWhileAMissIsAdmitted() throws Exception {
        long counted = clerk.cached("hit");

        try (FullGate full = fullGate()) {
            assertThat(clerk.cached("hit")).isEqualTo(counted);
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(() -> clerk.cached("miss"));
        }
    }

    @Test
    void aRetryPassesTheGateAgainInATransactionOfItsOwn() {
        long counted = clerk.retried();

        assertThat(counted).isNotNegative();
        assertThat(clerk.retriedAttempts()).isEqualTo(2);
    }
}
