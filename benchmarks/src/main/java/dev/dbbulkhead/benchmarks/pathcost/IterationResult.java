package dev.dbbulkhead.benchmarks.pathcost;

import java.util.List;

/**
 * One measurement iteration of one fork: what the callers of one configuration did in one window. A fork prints it
 * as one tab-separated line after {@link #LINE_PREFIX}, which the run reads back from the fork's output.
 *
 * @param serverCpuNanos the database server's CPU time in the window, or {@link ServerCpu#NOT_MEASURED}
 * @param compilingNanos the JIT compilers' time in the window (all compiler threads, as the JVM accounts it), or
 *                       {@link #NOT_COMPILING_MEASURED}: a fork still compiling measures the compiler too
 */
record IterationResult(UserPath path, Callers callers, int iteration, long calls, long errors, long wallNanos,
                       long processCpuNanos, long allocatedBytes, long serverCpuNanos, long compilingNanos) {

    /** What starts a result line in a fork's output; the fork's other lines are passed on as they are. */
    static final String LINE_PREFIX = "PATHCOST";
    /**
     * The compilers' time where the JVM does not report it, or the line came from a fork of a build whose harness did
     * not print it (a {@code --before} jar built before the field existed).
     */
    static final long NOT_COMPILING_MEASURED = -1L;
    private static final int FIELDS_WITHOUT_COMPILING = 10;

    private static final String SEPARATOR = "\t";
    private static final String NOT_MEASURED = "-";

    /** The mean time per call of one caller: in a closed loop, wall time × callers / calls. */
    double microsPerCall() {
        return (double) wallNanos * callers.count() / calls / 1e3;
    }

    double callsPerSecond() {
        return calls * 1e9 / wallNanos;
    }

    double bytesPerCall() {
        return (double) allocatedBytes / calls;
    }

    double processCpuMicrosPerCall() {
        return processCpuNanos / 1e3 / calls;
    }

    /** The server's CPU per call, NaN where it was not measured. */
    double serverCpuMicrosPerCall() {
        return serverCpuNanos == ServerCpu.NOT_MEASURED ? Double.NaN : serverCpuNanos / 1e3 / calls;
    }

    /** The share of the window's wall time the compilers spent compiling, NaN where it was not measured. */
    double compilingShare() {
        return compilingNanos == NOT_COMPILING_MEASURED ? Double.NaN : (double) compilingNanos / wallNanos;
    }

    /** The line a fork prints for this result. */
    String toLine() {
        return String.join(SEPARATOR, LINE_PREFIX, path.name(), callers.token(), Integer.toString(iteration),
                Long.toString(calls), Long.toString(errors), Long.toString(wallNanos), Long.toString(processCpuNanos),
                Long.toString(allocatedBytes),
                serverCpuNanos == ServerCpu.NOT_MEASURED ? NOT_MEASURED : Long.toString(serverCpuNanos),
                compilingNanos == NOT_COMPILING_MEASURED ? NOT_MEASURED : Long.toString(compilingNanos));
    }

    /** True for a line of {@link #toLine()}'s form. */
    static boolean isResultLine(String line) {
        return line.startsWith(LINE_PREFIX + SEPARATOR);
    }

    /**
     * The result of a {@link #toLine()} line, or of a line without the compilers' time, as a fork of an earlier build
     * prints it.
     */
    static IterationResult parse(String line) {
        List<String> fields = List.of(line.split(SEPARATOR));
        boolean withCompiling = fields.size() == FIELDS_WITHOUT_COMPILING + 1;
        if (!(withCompiling || fields.size() == FIELDS_WITHOUT_COMPILING) || !fields.getFirst().equals(LINE_PREFIX)) {
            throw new IllegalArgumentException("Not a result line: " + line);
        }
        return new IterationResult(UserPath.valueOf(fields.get(1)), Callers.parse(fields.get(2)),
                Integer.parseInt(fields.get(3)), Long.parseLong(fields.get(4)), Long.parseLong(fields.get(5)),
                Long.parseLong(fields.get(6)), Long.parseLong(fields.get(7)), Long.parseLong(fields.get(8)),
                optional(fields.get(9), ServerCpu.NOT_MEASURED),
                withCompiling ? optional(fields.get(10), NOT_COMPILING_MEASURED) : NOT_COMPILING_MEASURED);
    }

    private static long optional(String field, long notMeasured) {
        return field.equals(NOT_MEASURED) ? notMeasured : Long.parseLong(field);
    }
}
