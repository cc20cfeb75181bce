package dev.dbbulkhead.gate;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/** What one simulation run measured, over the operations that arrived in its measured window. */
final class SimulationResult {

    final long[] offered;
    final long[] served;
    final long[] timedOut;
    final long[] refusedAtEdge;
    final long[] displaced;
    /** Requests whose first operation arrived in the window, and those whose every operation was served. */
    final long[] requestsOffered;
    final long[] requestsServed;
    final double measuredSeconds;
    /** Place-nanoseconds the gate's own places stood idle while work waited. */
    double idleWhileWaiting;
    /** Place-nanoseconds of all B places while work waited. */
    double placesWhileWaiting;
    /** Refusals and displacements of a flow clearly under its share while a flow clearly over it held a waiting place. */
    final List<String> edgeViolations = new ArrayList<>();
    long edgeViolationCount;

    SimulationResult(int flows, double measuredSeconds) {
        offered = new long[flows];
        served = new long[flows];
        timedOut = new long[flows];
        refusedAtEdge = new long[flows];
        displaced = new long[flows];
        requestsOffered = new long[flows];
        requestsServed = new long[flows];
        this.measuredSeconds = measuredSeconds;
    }

    /** The share of {@code flow}'s offered operations that were served. */
    double servedFraction(int flow) {
        return (double) served[flow] / offered[flow];
    }

    /** The least {@link #servedFraction} among the {@code flows} that were offered any; 1 when none was. */
    double leastServed(IntPredicate flows) {
        double least = 1.0;
        for (int f = 0; f < offered.length; f++) {
            if (flows.test(f) && offered[f] > 0) {
                least = Math.min(least, servedFraction(f));
            }
        }
        return least;
    }

    /** The share of B busy while work waited; 1 when no work waited. */
    double busyWhileWaiting() {
        return placesWhileWaiting == 0 ? 1.0 : 1.0 - idleWhileWaiting / placesWhileWaiting;
    }

    void edgeViolation(String what) {
        edgeViolationCount++;
        if (edgeViolations.size() < 3) {
            edgeViolations.add(what);
        }
    }
}
