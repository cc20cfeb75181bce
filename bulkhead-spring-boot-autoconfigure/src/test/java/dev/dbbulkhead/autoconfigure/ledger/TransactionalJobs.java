package dev.dbbulkhead.autoconfigure.ledger;

import java.util.function.IntSupplier;
import org.springframework.transaction.annotation.Transactional;

/**
 * A {@code @Transactional} job and service in a package of their own, as an application's are: Spring calls them
 * through a generated subclass, and their transaction takes its connection before their own code runs, so the only
 * frame of theirs on the borrow's stack is the proxy's.
 */
public class TransactionalJobs {

    // Read and written through methods: a field of the proxy is not the field of the bean it stands for.
    private volatile IntSupplier probe = () -> -1;
    private volatile int seen = -1;

    /** What {@link #reconcile} reads inside its transaction, while the transaction holds its connection. */
    public void probe(IntSupplier whileHeld) {
        probe = whileHeld;
    }

    /** What the probe said in the last run of {@link #reconcile}; -1 before any. */
    public int seen() {
        return seen;
    }

    /** A scheduled method that is one transaction. */
    @Transactional
    public void reconcile() {
        seen = probe.getAsInt();
    }

    /** A service method, called by code of another package. */
    @Transactional
    public int inTransaction(IntSupplier whileHeld) {
        return whileHeld.getAsInt();
    }
}
