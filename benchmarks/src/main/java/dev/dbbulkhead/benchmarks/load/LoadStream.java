package dev.dbbulkhead.benchmarks.load;

/**
 * One stream of calls offered open-loop: arrivals come on a schedule fixed in advance whatever the system does, as
 * requests from many independent clients would. Each call runs on a virtual thread of its own.
 *
 * @param name     what the stream is called in results
 * @param arrivals when the calls arrive
 * @param call     what each arrival does
 */
public record LoadStream(String name, Arrivals arrivals, Call call) {

    /** Calls arriving steadily, {@code callsPerSecond} of them each second. */
    public LoadStream(String name, double callsPerSecond, Call call) {
        this(name, Arrivals.steady(callsPerSecond), call);
    }

    /** One call; what it throws is classified by {@link Outcome#of}. */
    @FunctionalInterface
    public interface Call {
        void run() throws Exception;
    }
}
