package dev.dbbulkhead.benchmarks.pathcost;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

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
 * @param compilingNanos  the JIT compilers' accumulated time, or {@link IterationResult#NOT_COMPILING_MEASURED} where
 *                        the JVM does not report it
 * @param returnedByCaller each caller's calls that returned or threw since the callers started
 * @param longestCallNanos the longest call that returned or threw since the reading before this one
 */
record Reading(long nanoTime, long calls, long errors, long processCpuNanos, long allocatedBytes, long serverCpuNanos,
               long compilingNanos, long[] returnedByCaller, long longestCallNanos) {

    private static final com.sun.management.OperatingSystemMXBean OPERATING_SYSTEM =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    /** The JIT's account of its own time, or {@code null} where the JVM has no compiler or does not time it. */
    private static final @Nullable CompilationMXBean COMPILER = timedCompiler();

    /** Reads {@code loop}'s counts, the JVM's and the server's counters now. */
    static Reading take(ClosedLoop loop, ServerCpu server) {
        return new Reading(System.nanoTime(), loop.calls(), loop.errors(), OPERATING_SYSTEM.getProcessCpuTime(),
                THREADS.getTotalThreadAllocatedBytes(), server.nanos(), compilersNanosNow(), loop.returnedByCaller(),
                loop.takeLongestCallNanos());
    }

    private static long compilersNanosNow() {
        CompilationMXBean compiler = COMPILER;
        return compiler == null ? IterationResult.NOT_COMPILING_MEASURED
                : TimeUnit.MILLISECONDS.toNanos(compiler.getTotalCompilationTime());
    }

    private static @Nullable CompilationMXBean timedCompiler() {
        CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
        return compiler != null && compiler.isCompilationTimeMonitoringSupported() ? compiler : null;
    }

    /** The iteration from this reading to {@code end}. */
    IterationResult until(Reading end, UserPath path, Callers callers, int iteration) {
        boolean serverMeasured = serverCpuNanos != ServerCpu.NOT_MEASURED
                && end.serverCpuNanos != ServerCpu.NOT_MEASURED;
        boolean compilingMeasured = compilingNanos != IterationResult.NOT_COMPILING_MEASURED
                && end.compilingNanos != IterationResult.NOT_COMPILING_MEASURED;
        return new IterationResult(path, callers, iteration, end.calls - calls, end.errors - errors,
                end.nanoTime - nanoTime, end.processCpuNanos - processCpuNanos, end.allocatedBytes - allocatedBytes,
                serverMeasured ? end.serverCpuNanos - serverCpuNanos : ServerCpu.NOT_MEASURED,
                compilingMeasured ? end.compilingNanos - compilingNanos : IterationResult.NOT_COMPILING_MEASURED,
                end.longestCallNanos, idleCallersUntil(end));
    }

    /** The callers none of whose calls returned or threw between this reading and {@code end}. */
    private int idleCallersUntil(Reading end) {
        int idle = 0;
        for (int i = 0; i < returnedByCaller.length; i++) {
            if (end.returnedByCaller[i] == returnedByCaller[i]) {
                idle++;
            }
        }
        return idle;
    }
}
