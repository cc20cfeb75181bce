package dev.dbbulkhead.jdbc.ungated;

import java.sql.SQLNonTransientConnectionException;

/**
 * A connection refused because it was asked for outside every gate, by a pool whose detector refuses such borrows
 * (so that a test suite fails on its ungated paths). Non-transient: asking again from the same place is refused
 * again, until the work is gated or its caller recognised. Nothing was borrowed.
 */
public final class UngatedConnectionException extends SQLNonTransientConnectionException {

    private static final long serialVersionUID = 1L;

    /** SQLState class 08, connection exception: the client did not establish the connection. */
    private static final String SQL_STATE = "08001";

    private final String pool;
    private final CallSite callSite;

    /**
     * @param pool     the pool asked
     * @param callSite where the connection was asked for
     * @param message  what was refused and how to fix it
     */
    public UngatedConnectionException(String pool, CallSite callSite, String message) {
        super(message, SQL_STATE);
        this.pool = pool;
        this.callSite = callSite;
    }

    /** The pool asked. */
    public String pool() {
        return pool;
    }

    /** Where the connection was asked for. */
    public CallSite callSite() {
        return callSite;
    }
}
