package dev.dbbulkhead.gate;

/**
 * Tells whether a transaction is already active on the calling thread, so a gate can refuse to admit
 * an operation whose transaction began before admission. Found with {@link java.util.ServiceLoader};
 * a provider whose framework is absent from the class path is skipped.
 */
public interface AmbientTransactionProbe {

    /** Whether the calling thread is inside an active transaction. Must be cheap and must not throw. */
    boolean transactionActive();
}
