package dev.dbbulkhead.fleet;

/** The fleet coordinator could not be reached, or refused a renewal: the member's lease is as it was. */
public final class FleetUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public FleetUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
