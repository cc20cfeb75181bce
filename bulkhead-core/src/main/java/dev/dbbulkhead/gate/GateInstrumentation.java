package dev.dbbulkhead.gate;


/**
 * Observes the gate of every workload the auto-configuration builds; each bean of this type is asked, in bean
 * order, as each gate is built. The metrics, the observations and the {@code dbbulkheads} endpoint's totals are
 * such beans; an application may add its own.
 */
public interface GateInstrumentation {

    /**
     * The listener to tell of every admission decision of {@code workload}'s gate, which is about to be built: a
     * gate's listener is fixed when it is built. It runs on the admission path: it must be cheap and must not throw.
     *
     * @return the listener, or {@link GateListener#NONE} for none
     */
    GateListener listener(String workload);

    /** The gate of a workload has been built with the listener returned for it; observe its state from here on. */
    default void gateBuilt(AdmissionGate gate) {
    }
}
