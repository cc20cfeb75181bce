package dev.dbbulkhead.benchmarks.pathcost;

import static dev.dbbulkhead.benchmarks.report.MarkdownTable.number;

import dev.dbbulkhead.benchmarks.load.RunConditions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * Scenario 6, the cost of the whole user path: runs each {@link UserPath} in forks of the load harness
 * ({@link PathLoadFork}) and writes path-cost.md, one table per caller configuration, the targets marked, and with
 * {@code --before JAR} the starter paths before and after a change.
 *
 * <p>{@code java -jar benchmarks/target/benchmarks.jar path-cost [--out DIR] [--quick] [--forks N]
 * [--iteration-time 1.5s] [--before JAR] [--paths TRANSACTIONAL,STARTER,...] [--callers 1,8,32,v64,v512]}:
 * <ul>
 *   <li>{@code --quick}: 1 fork, 1 s warm-up, 0.3 s settling, 2 × 0.5 s iterations, about a minute;</li>
 *   <li>default: 2 forks per path, 5 s warm-up (8 platform callers, then each caller configuration), then for
 *       each caller configuration 1 s settling and 4 × 1.5 s iterations: about 43 s a fork with the JVM,
 *       PostgreSQL and the application starting, so about 10 minutes for the seven paths (17 with
 *       {@code --before});</li>
 *   <li>{@code --before JAR}: the starter paths also run from that benchmarks jar, built from the product before a
 *       change (it holds this same harness), each next to this build's fork of the same path;
 *       {@code @Transactional} alone and Resilience4j run from this build only. A jar whose harness has no such
 *       path (pool-level admission came later) ends the run at that fork: leave the path out with {@code --paths};</li>
 *   <li>{@code --paths}, {@code --callers}: a subset, e.g. {@code --paths TRANSACTIONAL,POOL_ADMISSION,STARTER
 *       --callers 1,8,16,64,v64,v256}; {@code v64} is 64 virtual threads, {@code 8} 8 platform threads, any count
 *       up to {@link PathApplication#MOST_CALLERS} callers.</li>
 * </ul>
 * System properties {@code -Ddb.bulkhead.*} given to this JVM are passed on to the forks.
 */
public final class PathCostRun {

    private final PathCostOptions options;

    private PathCostRun(PathCostOptions options) {
        this.options = options;
    }

    /**
     * The run of {@code arguments}, the options with {@code --quick} and {@code --out} taken off, parsed before
     * anything runs.
     *
     * @throws IllegalArgumentException for an option it does not know or a value it cannot read
     */
    public static PathCostRun of(boolean quick, List<String> arguments) {
        return new PathCostRun(PathCostOptions.parse(quick, arguments));
    }

    /** Runs the forks one after the other and writes path-cost.md into {@code out}. */
    public void run(Path out) throws IOException {
        double loadBefore = RunConditions.loadAverage();
        Instant began = Instant.now();
        PathSummaries summaries = new PathSummaries();
        String ownClasspath = System.getProperty("java.class.path");
        for (ForkRun fork : options.plan()) {
            String classpath = fork.variant() == Variant.BEFORE ? options.before().orElseThrow().toString()
                    : ownClasspath;
            summaries.addAll(fork.variant(), ChildJvm.run(fork, classpath, options.settings()));
        }
        String text = settingsLine(options) + "; from " + began + " to " + Instant.now() + "; load average "
                + number(loadBefore, 2) + " before, " + number(RunConditions.loadAverage(), 2) + " after; JDK "
                + System.getProperty("java.vm.vendor") + " " + Runtime.version() + ".\n\n"
                + PathCostReport.render(summaries);
        Files.createDirectories(out);
        Files.writeString(out.resolve("path-cost.md"), text);
    }

    /** What was run, for the report's first line; the "before" jar by its file name alone. */
    static String settingsLine(PathCostOptions options) {
        return "Load harness: " + options.forks() + (options.forks() == 1 ? " fork" : " forks") + " per path"
                + (options.forks() > 1 ? " (odd rounds in path order, even rounds reversed)" : "") + ", each "
                + options.settings().describe()
                + options.before().map(jar -> "; starter paths also from `" + jar.getFileName() + "` (before)")
                .orElse("");
    }
}
