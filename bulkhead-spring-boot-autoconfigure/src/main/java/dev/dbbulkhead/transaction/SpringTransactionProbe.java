package dev.dbbulkhead.transaction;

import dev.dbbulkhead.gate.AmbientTransactionProbe;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Reports Spring-managed transactions to every gate. Registered as a service; when spring-tx is absent its
 * construction fails and the gate skips it.
 */
public final class SpringTransactionProbe implements AmbientTransactionProbe {

    /** Touches spring-tx on construction, so a missing spring-tx fails here and not on the admission path. */
    public SpringTransactionProbe() {
        TransactionSynchronizationManager.isActualTransactionActive();
    }

    @Override
    public boolean transactionActive() {
        return TransactionSynchronizationManager.isActualTransactionActive();
    }
}
