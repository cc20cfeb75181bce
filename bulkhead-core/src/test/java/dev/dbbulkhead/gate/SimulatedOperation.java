package dev.dbbulkhead.gate;

/** One operation in a simulation run: which flow and request it belongs to, when it came and must start by. */
final class SimulatedOperation {

    final int flow;
    final boolean inProgress;
    /** Operations of its request still to come after it. */
    final int operationsAfter;
    /** The closed-loop client that sent it, or -1. */
    final int client;
    final long arrival;
    final long deadline;
    final boolean measured;
    /** What the order knows it by while it waits. */
    Object handle;
    boolean waiting;

    SimulatedOperation(int flow, boolean inProgress, int operationsAfter, int client, long arrival, long deadline,
                       boolean measured) {
        this.flow = flow;
        this.inProgress = inProgress;
        this.operationsAfter = operationsAfter;
        this.client = client;
        this.arrival = arrival;
        this.deadline = deadline;
        this.measured = measured;
    }
}
