package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The caller thread's CPU time per call on each {@link UserPath}, the applications running side by side and
 * measured in turns, round after round: on a machine shared with other work the wall time of a call is mostly
 * scheduling, while the CPU the caller's own thread spends is what the path costs it. A diagnostic to find where the
 * time goes, next to the load harness of {@link PathCostRun}, whose figures are reported.
 * {@code java -cp benchmarks/target/benchmarks.jar dev.dbbulkhead.benchmarks.pathcost.CallerCpuTime [calls] [rounds]}.
 */
public final class CallerCpuTime {

    private CallerCpuTime() {
    }

    public static void main(String[] args) {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<UserPath, PathApplication> applications = new EnumMap<>(UserPath.class);
        try {
            for (UserPath path : UserPath.values()) {
                applications.put(path, PathApplication.start(path, BenchDatabase.create().database()));
            }
            System.out.println("µs per call, wall / caller CPU; " + calls + " calls per path per round;"
                    + " the first rounds warm up");
            for (int round = 1; round <= rounds; round++) {
                StringBuilder line = new StringBuilder("round " + round + ":");
                applications.forEach((path, application) -> {
                    long cpuBefore = threads.getCurrentThreadCpuTime();
                    long wallBefore = System.nanoTime();
                    for (int call = 0; call < calls; call++) {
                        application.credit(BenchDatabase.randomAccount());
                    }
                    line.append(String.format(Locale.ROOT, "  %s %.1f / %.1f", path,
                            (System.nanoTime() - wallBefore) / 1e3 / calls,
                            (threads.getCurrentThreadCpuTime() - cpuBefore) / 1e3 / calls));
                });
                System.out.println(line);
            }
        } finally {
            applications.values().forEach(PathApplication::close);
        }
        // The embedded PostgreSQL stops in a shutdown hook; HikariCP may leave non-daemon threads.
        System.exit(0);
    }
}
