package dev.dbbulkhead.conformance;

/** An {@link Error} thrown by test work, to prove errors roll back like exceptions. */
final class SimulatedError extends Error {

    private static final long serialVersionUID = 1L;

    SimulatedError(String message) {
        super(message);
    }
}
