package dev.dbbulkhead.gate;

/**
 * One thread's record of the gate whose permit it holds, if any. Read and written only by its own thread (it lives
 * in a thread-local, and a permit is released only by its owner), so plain fields suffice.
 */
final class HeldGate {

    private AdmissionGate gate;

    /** The gate whose permit this thread holds, or {@code null}. */
    AdmissionGate gate() {
        return gate;
    }

    /** Records that this thread now holds {@code permit} of {@code holder}; returns the permit. */
    Permit hold(AdmissionGate holder, Permit permit) {
        gate = holder;
        return permit;
    }

    /** Records that this thread holds no permit. */
    void clear() {
        gate = null;
    }
}
