package dev.dbbulkhead.benchmarks.pathcost;

import java.util.List;

/**
 * One measurement iteration of one fork: what the callers of one configuration did in one window. A fork prints it
 * as one tab-separated line after {@link #LINE_PREFIX}, which the run reads back from the fork's output.
 *
 * @param serverCpuNanos the database server's CPU time in the window, or {@link ServerCpu#NOT_MEASURED}
 * @param compilingNanos the JIT compilers' time in the window (all compiler threads, as the JVM accounts it), or
 *                       {@link #NOT_COMPILING_MEASURED}: a fork still compiling measures the compiler too
 * @param longestCallNanos the longest call that returned in the window, or {@link #NOT_STALLS_MEASURED}
 * @param idleCallers     the callers none of whose calls returned or threw in the window — held away from the path for
 *                        the whole window while the others ran — or {@link #NOT_STALLS_MEASURED}
 */
record IterationResult(UserPath path, Callers callers, int iteration, long calls, long errors, long wallNanos,
                       long processCpuNanos, long allocatedBytes, long serverCpuNanos, long compilingNanos,
                       long longestCallNanos, int idleCallers) {

    /** What starts a result line in a fork's output; the fork's other lines are passed on as they are. */
    static final String LINE_PREFIX = "PATHCOST";
    /**
     * The compilers' time where the JVM does not report it, or the line came from a fork of a build whose harness did
     * not print it (a {@code --before} jar built before the field existed).
     */
    static final long NOT_COMPILING_MEASURED = -1L;
    /** The longest call and the idle callers where the line came from a fork of a build that did not print them. */
    static final int NOT_STALLS_MEASURED = -1;
    private static final int FIELDS_WITHOUT_COMPILING = 10;
    private static final int FIELDS_WITHOUT_STALLS = FIELDS_WITHOUT_COMPILING + 1;
    private static final int FIELDS = FIELDS_WITHOUT_STALLS + 2;

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

    /** The longest call in milliseconds, NaN where it was not measured. */
    double longestCallMillis() {
        return longestCallNanos == NOT_STALLS_MEASURED ? Double.NaN : longestCallNanos / 1e6;
    }

    /** The line a fork prints for this result. */
    String toLine() {
        return String.join(SEPARATOR, LINE_PREFIX, path.name(), callers.token(), Integer.toString(iteration),
                Long.toString(calls), Long.toString(errors), Long.toString(wallNanos), Long.toString(processCpuNanos),
                Long.toString(allocatedBytes),
                serverCpuNanos == ServerCpu.NOT_MEASURED ? NOT_MEASURED : Long.toString(serverCpuNanos),
                compilingNanos == NOT_COMPILING_MEASURED ? NOT_MEASURED : Long.toString(compilingNanos),
                Long.toString(longestCallNanos), Integer.toString(idleCallers));
    }

    /** True for a line of {@link #toLine()}'s form. */
    static boolean isResultLine(String line) {
        return line.startsWith(LINE_PREFIX + SEPARATOR);
    }

    /**
     * The result of a {@link #toLine()} line, or of a line without the stalls or without the compilers' time either, as
     * a fork of an earlier build prints it.
     */
    static IterationResult parse(String line) {
        List<String> fields = List.of(line.split(SEPARATOR));
        boolean withStalls = fields.size() == FIELDS;
        boolean withCompiling = withStalls || fields.size() == FIELDS_WITHOUT_STALLS;
        if (!(withCompiling || fields.size() == FIELDS_WITHOUT_COMPILING) || !fields.getFirst().equals(LINE_PREFIX)) {
            throw new IllegalArgumentException("Not a result line: " + line);
        }
        return new IterationResult(UserPath.valueOf(fields.get(1)), Callers.parse(fields.get(2)),
                Integer.parseInt(fields.get(3)), Long.parseLong(fields.get(4)), Long.parseLong(fields.get(5)),
                Long.parseLong(fields.get(6)), Long.parseLong(fields.get(7)), Long.parseLong(fields.get(8)),
                optional(fields.get(9), ServerCpu.NOT_MEASURED),
                withCompiling ? optional(fields.get(10), NOT_COMPILING_MEASURED) : NOT_COMPILING_MEASURED,
                withStalls ? Long.parseLong(fields.get(11)) : NOT_STALLS_MEASURED,
                withStalls ? Integer.parseInt(fields.get(12)) : NOT_STALLS_MEASURED);
    }

    private static long optional(String field, long notMeasured) {
        return field.equals(NOT_MEASURED) ? notMeasured : Long.parseLong(field);
    }
}
