package dev.dbbulkhead.benchmarks.pathcost;

import java.lang.management.ManagementFactory;

/**
 * The counters of a running fork at one instant; two readings bound a measurement iteration, so that the calls, the
 * JVM's CPU and allocation and the server's CPU all come from the same window.
 *
 * @param nanoTime        {@link System#nanoTime()}
 * @param calls           calls that returned since the callers started
 * @param errors          calls that threw
 * @param processCpuNanos the JVM's CPU time, all threads
 * @param allocatedBytes  bytes allocated on the heap by all threads since the JVM started; a virtual thread's
 *                        allocations are counted on the carrier it ran on
 * @param serverCpuNanos  the database server's CPU time, or {@link ServerCpu#NOT_MEASURED}
 */
record Reading(long nanoTime, long calls, long errors, long processCpuNanos, long allocatedBytes, long serverCpuNanos) {

    private static final com.sun.management.OperatingSystemMXBean OPERATING_SYSTEM =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Reads {@code loop}'s counts, the JVM's and the server's counters now. */
    static Reading take(ClosedLoop loop, ServerCpu server) {
        return new Reading(System.nanoTime(), loop.calls(), loop.errors(), OPERATING_SYSTEM.getProcessCpuTime(),
                THREADS.getTotalThreadAllocatedBytes(), server.nanos());
    }

    /** The iteration from this reading to {@code end}. */
    IterationResult until(Reading end, UserPath path, Callers callers, int iteration) {
        boolean serverMeasured = serverCpuNanos != ServerCpu.NOT_MEASURED
                && end.serverCpuNanos != ServerCpu.NOT_MEASURED;
        return new IterationResult(path, callers, iteration, end.calls - calls, end.errors - errors,
                end.nanoTime - nanoTime, end.processCpuNanos - processCpuNanos, end.allocatedBytes - allocatedBytes,
                serverMeasured ? end.serverCpuNanos - serverCpuNanos : ServerCpu.NOT_MEASURED);
    }
}
