package dev.dbbulkhead.benchmarks.load;

/**
 * One stream of calls offered open-loop: arrivals come at a fixed rate whatever the system does, as requests
 * from many independent clients would. Each call runs on a virtual thread of its own.
 *
 * @param name           what the stream is called in results
 * @param callsPerSecond arrival rate
 * @param call           what each arrival does
 */
public record LoadStream(String name, double callsPerSecond, Call call) {

    /** One call; what it throws is classified by {@link Outcome#of}. */
    @FunctionalInterface
    public interface Call {
        void run() throws Exception;
    }
}
