package dev.dbbulkhead.benchmarks.shares;

import dev.dbbulkhead.gate.AdmissionGate;
import java.lang.reflect.Method;

/**
 * What a gate keeps of its keys, read from the gate itself: the flows its order of waiting work knows (those with
 * waiters, and the idle ones it remembers). That state is the gate's own business, so it is read reflectively, for
 * this measurement only.
 */
final class FlowsRemembered {

    private FlowsRemembered() {
    }

    /** The flows {@code gate} knows right now; -1 for a gate without rules. */
    static int count(AdmissionGate gate) {
        try {
            Method flowsKnown = AdmissionGate.class.getDeclaredMethod("flowsKnown");
            flowsKnown.setAccessible(true);
            return (int) flowsKnown.invoke(gate);
        } catch (ReflectiveOperationException unreadable) {
            throw new IllegalStateException("The flows of the gate could not be read", unreadable);
        }
    }
}
