package dev.dbbulkhead.gate;

/**
 * Observes the gates that something building many of them builds: asked for a workload's listener as its gate is
 * about to be built, then handed the gate. The Spring Boot auto-configuration asks every bean of this type, in bean
 * order; its metrics, observations and the {@code dbbulkheads} endpoint's totals are such beans, and an
 * application may add its own. Where gates are built by hand, pass the listener to the {@link AdmissionGate}.
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
