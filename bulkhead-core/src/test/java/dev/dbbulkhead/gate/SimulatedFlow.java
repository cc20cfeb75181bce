package dev.dbbulkhead.gate;

/**
 * One flow (key, tenant) of a simulated workload: how its requests arrive, how many operations each has, and what it
 * asks the order for.
 *
 * @param requestsPerSecond open arrivals: the mean rate of its requests; closed loops: ignored
 * @param maxOperations     each request has 1 to this many operations, drawn uniformly; the later ones are "in
 *                          progress"
 * @param clients           closed loops: how many clients each send a request, wait for its end and think a while
 */
record SimulatedFlow(String key, int weight, Criticality criticality, ArrivalProcess arrivals,
                     double requestsPerSecond, int maxOperations, int clients) {

    /** How a flow's requests arrive. */
    enum ArrivalProcess {
        /** Independent arrivals at a mean rate. */
        POISSON,
        /** Arrivals in groups of {@link #BURST} at one instant, the groups independent at a fifth of the rate. */
        BURSTS,
        /** A fixed number of clients, each sending its next request once its last ended and it thought a while. */
        CLOSED_LOOP;

        static final int BURST = 5;
    }

    /** The operations it asks per second when all are served: its requests times their mean length. */
    double operationsPerSecond() {
        return arrivals == ArrivalProcess.CLOSED_LOOP ? Double.POSITIVE_INFINITY
                : requestsPerSecond * (1 + maxOperations) / 2.0;
    }
}
