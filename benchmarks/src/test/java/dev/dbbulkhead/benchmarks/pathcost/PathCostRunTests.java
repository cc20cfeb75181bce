package dev.dbbulkhead.benchmarks.pathcost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The report of the load harness from hand-made iterations: the targets' rules, the aggregation of iterations, the
 * tables, the plan of forks and the options. Nothing here runs a fork.
 */
class PathCostRunTests {

    private static final double PLAIN_MICROS = 100.0;
    private static final long CALLS = 10_000;
    private static final Callers ONE = Callers.platform(1);
    private static final Callers EIGHT = Callers.platform(8);

    @Test
    void aTimeTargetIsMetUpToItsOverheadAndNotBeyond() {
        for (double overhead : new double[] {PathTargets.METERS_OVERHEAD, PathTargets.OBSERVED_OVERHEAD,
                PathTargets.SINGLE_CALLER_OVERHEAD, PathTargets.POOL_ADMISSION_OVERHEAD,
                PathTargets.POOL_ADMISSION_CONTENDED_OVERHEAD, 0}) {
            double limit = PLAIN_MICROS * (1 + overhead);
            assertThat(PathTargets.meetsTimeTarget(limit, PLAIN_MICROS, overhead)).as("at %s", overhead).isTrue();
            assertThat(PathTargets.meetsTimeTarget(Math.nextUp(limit), PLAIN_MICROS, overhead)).as("above %s", overhead)
                    .isFalse();
        }
        assertThat(PathTargets.meetsTimeTarget(Double.NaN, PLAIN_MICROS, 0)).as("nothing measured").isFalse();
    }

    @Test
    void theAllocationTargetAllowsOneKibibyteMoreThanThePlainTransaction() {
        assertThat(PathTargets.meetsAllocationTarget(2_000 + 1_024, 2_000)).isTrue();
        assertThat(PathTargets.meetsAllocationTarget(Math.nextUp(2_000.0 + 1_024), 2_000)).isFalse();
    }

    @Test
    void aSummaryAveragesTheIterationsAndGivesJmhsErrorOfTheMean() {
        PathSummary summary = PathSummary.of(List.of(iteration(UserPath.STARTER, EIGHT, 100, 2_000, 1),
                iteration(UserPath.STARTER, EIGHT, 110, 3_000, 2), iteration(UserPath.STARTER, EIGHT, 120, 4_000, 0)));

        assertThat(summary.iterations()).isEqualTo(3);
        assertThat(summary.microsPerCall()).isCloseTo(110, within(1e-9));
        // Student's t at 99.95 % with two degrees of freedom (31.599) × the standard error 10 / √3.
        assertThat(summary.microsPerCallError()).isCloseTo(31.599 * 10 / Math.sqrt(3), within(0.01));
        double callsPerSecond = (8 * 1e6 / 100 + 8 * 1e6 / 110 + 8 * 1e6 / 120) / 3;
        assertThat(summary.callsPerSecond()).isCloseTo(callsPerSecond, within(1e-6));
        assertThat(summary.bytesPerCall()).isCloseTo(3_000, within(1e-9));
        assertThat(summary.processCpuMicrosPerCall()).isCloseTo(50, within(1e-9));
        assertThat(summary.serverCpuMicrosPerCall()).isCloseTo(25, within(1e-9));
        assertThat(summary.errors()).isEqualTo(3);
        assertThat(summary.compilingShare()).isCloseTo(0.2, within(1e-9));
    }

    @Test
    void theCompilersShareIsTheirTimeOverTheWindowsAndNotMeasuredWhereAnyIterationDidNotReportIt() {
        IterationResult quiet = compiling(iteration(UserPath.POOL_ADMISSION, Callers.virtual(256), 100, 2_000, 0), 0);
        IterationResult busy = compiling(quiet, quiet.wallNanos() * 9 / 10);
        IterationResult unreported = compiling(quiet, IterationResult.NOT_COMPILING_MEASURED);

        assertThat(PathSummary.of(List.of(quiet, busy)).compilingShare()).isCloseTo(0.45, within(1e-9));
        assertThat(PathSummary.of(List.of(quiet, unreported)).compilingShare()).isNaN();
    }

    @Test
    void theLongestCallAndTheMostIdleCallersAreTheWorstIterationsAndNotMeasuredWhereAnyIterationDidNotReportThem() {
        IterationResult steady = iteration(UserPath.POOL_ADMISSION_BOUND, Callers.platform(24), 100, 2_000, 0);
        IterationResult stalled = stalled(steady, 10_375_000_000L, 8);
        IterationResult unreported = stalled(steady, IterationResult.NOT_STALLS_MEASURED,
                IterationResult.NOT_STALLS_MEASURED);

        PathSummary summary = PathSummary.of(List.of(steady, stalled, steady));
        assertThat(summary.longestCallMillis()).isCloseTo(10_375, within(1e-9));
        assertThat(summary.mostIdleCallers()).isEqualTo(8);
        PathSummary partly = PathSummary.of(List.of(stalled, unreported));
        assertThat(partly.longestCallMillis()).isNaN();
        assertThat(partly.mostIdleCallers()).isEqualTo(IterationResult.NOT_STALLS_MEASURED);
    }

    @Test
    void twoIterationsHaveNoErrorAsWithJmh() {
        IterationResult one = iteration(UserPath.STARTER, ONE, 100, 2_000, 0);

        assertThat(PathSummary.of(List.of(one, one)).microsPerCallError()).isNaN();
        assertThat(PathSummary.of(List.of(one, one, one)).microsPerCallError()).isZero();
    }

    @Test
    void theServerCpuIsNotMeasuredWhereAnyIterationCouldNotReadIt() {
        IterationResult read = iteration(UserPath.STARTER, ONE, 100, 2_000, 0);
        IterationResult unread = withoutServerCpu(read);

        assertThat(PathSummary.of(List.of(read, unread)).serverCpuMicrosPerCall()).isNaN();
        assertThat(unread.serverCpuMicrosPerCall()).isNaN();
    }

    @Test
    void anIterationSurvivesItsLineInAForksOutput() {
        IterationResult result = iteration(UserPath.STARTER_OBSERVED, Callers.virtual(512), 900, 7_000, 3);

        assertThat(IterationResult.isResultLine(result.toLine())).isTrue();
        assertThat(IterationResult.parse(result.toLine())).isEqualTo(result);
        assertThat(IterationResult.parse(withoutServerCpu(result).toLine())).isEqualTo(withoutServerCpu(result));
        assertThat(IterationResult.isResultLine("PATHCOSTLY a fork's own output")).isFalse();
        IterationResult unreported = compiling(withoutServerCpu(result), IterationResult.NOT_COMPILING_MEASURED);
        assertThat(unreported.toLine()).endsWith("\t-\t-\t3000000\t0");
        assertThat(IterationResult.parse(unreported.toLine())).isEqualTo(unreported);
    }

    @Test
    void aLineFromAForkOfAnEarlierBuildHasNoStallsAndPerhapsNoCompilersTime() {
        IterationResult result = iteration(UserPath.POOL_ADMISSION_BOUND, Callers.virtual(256), 900, 3_000, 0);
        String withoutStalls = withoutLastField(withoutLastField(result.toLine()));
        String earlierLine = withoutLastField(withoutStalls);

        assertThat(IterationResult.parse(withoutStalls)).isEqualTo(stalled(result,
                IterationResult.NOT_STALLS_MEASURED, IterationResult.NOT_STALLS_MEASURED));
        assertThat(IterationResult.parse(earlierLine)).isEqualTo(stalled(
                compiling(result, IterationResult.NOT_COMPILING_MEASURED), IterationResult.NOT_STALLS_MEASURED,
                IterationResult.NOT_STALLS_MEASURED));
        assertThatThrownBy(() -> IterationResult.parse(withoutLastField(result.toLine())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Not a result line");
        assertThatThrownBy(() -> IterationResult.parse(earlierLine.substring(0, earlierLine.lastIndexOf('\t'))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Not a result line");
    }

    @Test
    void theReportHasATablePerCallerConfigurationAndMarksEachTarget() {
        String report = report(
                // 1 caller: observations at +6 % (over 5 %); allocation 1,100 B above the plain path (over 1,024 B).
                after(ONE, UserPath.TRANSACTIONAL, 100, 2_000), after(ONE, UserPath.STARTER_METERS, 102, 2_500),
                after(ONE, UserPath.STARTER_OBSERVED, 106, 3_100), after(ONE, UserPath.RESILIENCE4J, 101, 2_800),
                // 8 callers: meters at +6 % (over 5 %), observations at +8 % (within 10 %) but above Resilience4j.
                after(EIGHT, UserPath.TRANSACTIONAL, 200, 2_000), after(EIGHT, UserPath.STARTER_METERS, 212, 2_400),
                after(EIGHT, UserPath.STARTER_OBSERVED, 216, 3_000), after(EIGHT, UserPath.RESILIENCE4J, 210, 2_800));

        assertThat(report).contains("**1 platform thread**", "**8 platform threads**")
                .contains("| `@DbBulkhead` + meters | 212.0 ± 0.0 | 1.060 | 37,736 | 2,400 | +400 | 50.0 | 25.0 | 0"
                        + " | 20.0 % | 3.0 | 0 |")
                .contains("| JIT compiling |")
                .contains("| `@DbBulkhead` + meters ≤ 1.05 × `@Transactional` alone | 8 platform threads"
                        + " | +6.0 %, 2.0 µs over | **not met** |")
                .contains("| `@DbBulkhead` + meters + observations ≤ 1.10 × `@Transactional` alone"
                        + " | 8 platform threads | +8.0 % | met |")
                .contains("| `@DbBulkhead` + meters + observations ≤ Resilience4j `@Bulkhead` → `@Transactional`"
                        + " | 8 platform threads | +2.9 %, 6.0 µs over | **not met** |")
                .contains("| `@DbBulkhead` + meters + observations allocates ≤ `@Transactional` alone + 1,024 B per"
                        + " call | 1 platform thread | +1,100 B/call, 76 B over | **not met** |")
                .contains("| `@DbBulkhead` + meters + observations allocates ≤ `@Transactional` alone + 1,024 B per"
                        + " call | 8 platform threads | +1,000 B/call | met |")
                .contains("| `@DbBulkhead` + meters + observations ≤ 1.05 × `@Transactional` alone"
                        + " | 1 platform thread | +6.0 %, 1.0 µs over | **not met** |")
                .doesNotContain("(after)", "Before and after", "calls failed");
        assertThat(report).as("the meters' target is for contending callers only")
                .doesNotContain("| `@DbBulkhead` + meters ≤ 1.05 × `@Transactional` alone | 1 platform thread");
        assertThat(report.indexOf("**1 platform thread**")).isLessThan(report.indexOf("**8 platform threads**"));
    }

    @Test
    void poolLevelAdmissionMayAddFivePercentBelowTheGatesWidthAndTenFromItOn() {
        Callers sixteen = Callers.platform(PathApplication.WIDTH);
        String report = report(after(EIGHT, UserPath.TRANSACTIONAL, 200, 2_000),
                after(EIGHT, UserPath.POOL_ADMISSION, 212, 2_400),
                after(sixteen, UserPath.TRANSACTIONAL, 400, 2_000),
                after(sixteen, UserPath.POOL_ADMISSION, 436, 2_400));

        assertThat(report).contains("| `@Transactional` alone, admitted at the pool ≤ 1.05 × `@Transactional` alone"
                        + " | 8 platform threads | +6.0 %, 2.0 µs over | **not met** |")
                .contains("| `@Transactional` alone, admitted at the pool ≤ 1.10 × `@Transactional` alone"
                        + " | 16 platform threads | +9.0 % | met |")
                .doesNotContain("admitted at the pool ≤ 1.10 × `@Transactional` alone | 8 platform threads")
                .doesNotContain("admitted at the pool ≤ 1.05 × `@Transactional` alone | 16 platform threads");
        assertThat(PathTargets.fewerCallersThanPlaces(Callers.virtual(PathApplication.WIDTH - 1))).isTrue();
        assertThat(PathTargets.fewerCallersThanPlaces(Callers.virtual(PathApplication.WIDTH))).isFalse();
    }

    @Test
    void withABeforeBuildTheStarterRowsAreNamedByBuildAndCompared() {
        String report = report(after(EIGHT, UserPath.TRANSACTIONAL, 200, 2_000),
                new Row(Variant.BEFORE, EIGHT, UserPath.STARTER, 240, 4_000),
                after(EIGHT, UserPath.STARTER, 210, 2_500));

        assertThat(report).contains("| `@DbBulkhead`, no meters, no observations (before) | 240.0 ± 0.0 | 1.200 |")
                .contains("| `@DbBulkhead`, no meters, no observations (after) | 210.0 ± 0.0 | 1.050 |")
                .contains("| `@Transactional` alone | 200.0 ± 0.0 |")
                .contains("| 8 platform threads | `@DbBulkhead`, no meters, no observations | 240.0 ± 0.0 | 210.0 ± 0.0"
                        + " | -12.5 % | 4,000 | 2,500 | 50.0 | 50.0 |")
                .as("no target compares these two paths").contains("No target applies").doesNotContain("| verdict |");
    }

    @Test
    void failedCallsAreReportedBelowTheTables() {
        PathSummaries summaries = new PathSummaries();
        summaries.add(Variant.AFTER, iteration(UserPath.TRANSACTIONAL, ONE, 100, 2_000, 7));

        assertThat(PathCostReport.render(summaries)).contains("**7 calls failed**");
    }

    @Test
    void oddRoundsRunThePathsInOrderEvenRoundsInReverseEachStarterPathsBuildsTogether() {
        List<String> plan = ForkRun.plan(List.of(UserPath.TRANSACTIONAL, UserPath.STARTER, UserPath.RESILIENCE4J),
                2, true).stream().map(ForkRun::tag).toList();

        assertThat(plan).containsExactly("TRANSACTIONAL fork 1", "STARTER before fork 1", "STARTER fork 1",
                "RESILIENCE4J fork 1", "RESILIENCE4J fork 2", "STARTER fork 2", "STARTER before fork 2",
                "TRANSACTIONAL fork 2");
        assertThat(ForkRun.plan(List.of(UserPath.values()), 1, false)).extracting(ForkRun::path)
                .containsExactly(UserPath.values());
    }

    @Test
    void theOptionsChooseForksSettingsPathsAndCallers() {
        PathCostOptions quick = PathCostOptions.parse(true, List.of());
        assertThat(quick.forks()).isEqualTo(1);
        assertThat(quick.settings()).isEqualTo(LoadSettings.QUICK);
        assertThat(quick.paths()).containsExactly(UserPath.values());
        assertThat(quick.before()).isEmpty();

        PathCostOptions chosen = PathCostOptions.parse(false, List.of("--forks", "3", "--iteration-time", "2s",
                "--paths", "RESILIENCE4J,TRANSACTIONAL", "--callers", "8,v64"));
        assertThat(chosen.forks()).isEqualTo(3);
        assertThat(chosen.settings().iterationTime()).isEqualTo(Duration.ofSeconds(2));
        assertThat(chosen.settings().warmup()).isEqualTo(LoadSettings.FULL.warmup());
        assertThat(chosen.paths()).containsExactly(UserPath.TRANSACTIONAL, UserPath.RESILIENCE4J);
        assertThat(chosen.settings().callers()).containsExactly(EIGHT, Callers.virtual(64));
        assertThat(PathCostOptions.parse(false, List.of("--paths", "STARTER,POOL_ADMISSION,TRANSACTIONAL")).paths())
                .as("in the report's order").containsExactly(UserPath.TRANSACTIONAL, UserPath.POOL_ADMISSION,
                        UserPath.STARTER);
        assertThat(PathCostOptions.parse(false, List.of()).forks()).isEqualTo(PathCostOptions.FORKS);

        assertThatThrownBy(() -> PathCostOptions.parse(false, List.of("--fork", "3")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--fork");
        assertThatThrownBy(() -> PathCostOptions.parse(false, List.of("--before", "no-such.jar")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-such.jar");
        assertThatThrownBy(() -> PathCostOptions.parse(false, List.of("--iteration-time", "soon")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aForkReadsTheSettingsItIsGiven() {
        LoadSettings settings = new LoadSettings(Duration.ofMillis(200), Duration.ofMillis(100), 3,
                Duration.ofMillis(1_500), List.of(ONE, Callers.virtual(2)));

        assertThat(LoadSettings.fromArguments(settings.arguments())).isEqualTo(settings);
        assertThat(LoadSettings.duration("1.5s")).isEqualTo(Duration.ofMillis(1_500));
        assertThat(LoadSettings.duration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(LoadSettings.duration("2")).isEqualTo(Duration.ofSeconds(2));
        assertThat(LoadSettings.duration("PT0.3S")).isEqualTo(Duration.ofMillis(300));
        assertThat(LoadSettings.FULL.describe()).isEqualTo("5 s warm-up (8 platform threads, then each caller"
                + " configuration in turn, equal shares), then per caller configuration (1, 8, 32, v64, v512) 1 s"
                + " settling and 4 × 1.5 s measured");
    }

    @Test
    void theWarmUpRunsEightCallersThenEachMeasuredConfigurationForAnEqualShare() {
        LoadSettings settings = new LoadSettings(Duration.ofSeconds(30), Duration.ofSeconds(1), 4,
                Duration.ofSeconds(1), Callers.parseList("20,32,v64"));

        assertThat(settings.warmUpCallers()).extracting(Callers::token).containsExactly("8", "20", "32", "v64");
        assertThat(settings.warmUpShare()).isEqualTo(Duration.ofMillis(7_500));
    }

    @Test
    void callerConfigurationsAreWrittenAsTheOptionWritesThem() {
        assertThat(Callers.parseList("1,8,32,v64,v512")).isEqualTo(Callers.ALL);
        assertThat(Callers.ALL).extracting(Callers::token).containsExactly("1", "8", "32", "v64", "v512");
        assertThat(Callers.ALL).extracting(Callers::label).containsExactly("1 platform thread",
                "8 platform threads", "32 platform threads", "64 virtual threads", "512 virtual threads");
        assertThat(Callers.ALL.stream().sorted(Callers.ORDER.reversed()).sorted(Callers.ORDER).toList())
                .isEqualTo(Callers.ALL);
        assertThatThrownBy(() -> Callers.parse("v0")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aProcessStatLineIsReadFromItsLastParenthesis() {
        ServerCpu.ProcessStat stat = ServerCpu.ProcessStat.parse(
                "4242 (postgres: a (b) c) S 4200 4200 4200 0 -1 4194560 500 0 0 0 31 17 5 3 20 0 1 0 1000 0 0");

        assertThat(stat.command()).isEqualTo("postgres: a (b) c");
        assertThat(stat.parent()).isEqualTo(4200);
        assertThat(stat.cpuTicks()).isEqualTo(31 + 17);
        assertThat(stat.cpuTicksWithEndedChildren()).isEqualTo(31 + 17 + 5 + 3);
    }

    @Test
    void theFirstLineNamesTheSettingsAndTheBeforeJarByItsNameAlone() {
        PathCostOptions options = new PathCostOptions(LoadSettings.QUICK, 2,
                Optional.of(Path.of("some", "where", "benchmarks-before.jar")), List.of(UserPath.values()));

        assertThat(PathCostRun.settingsLine(options)).startsWith("Load harness: 2 forks per path (odd rounds in path"
                        + " order, even rounds reversed), each 1 s warm-up (8 platform threads, then each caller")
                .endsWith("; starter paths also from `benchmarks-before.jar` (before)");
    }

    /**
     * One hand-made iteration of {@link #CALLS} calls; process CPU 50 µs and server CPU 25 µs a call, the compilers
     * busy a fifth of the time, the longest call 3 ms and no caller idle.
     */
    private static IterationResult iteration(UserPath path, Callers callers, long microsPerCall, long bytesPerCall,
                                             long errors) {
        long wallNanos = microsPerCall * 1_000 * CALLS / callers.count();
        return new IterationResult(path, callers, 1, CALLS, errors, wallNanos, 50_000 * CALLS, bytesPerCall * CALLS,
                25_000 * CALLS, wallNanos / 5, 3_000_000, 0);
    }

    private static String withoutLastField(String line) {
        return line.substring(0, line.lastIndexOf('\t'));
    }

    private static IterationResult withoutServerCpu(IterationResult result) {
        return new IterationResult(result.path(), result.callers(), result.iteration(), result.calls(), result.errors(),
                result.wallNanos(), result.processCpuNanos(), result.allocatedBytes(), ServerCpu.NOT_MEASURED,
                result.compilingNanos(), result.longestCallNanos(), result.idleCallers());
    }

    private static IterationResult compiling(IterationResult result, long compilingNanos) {
        return new IterationResult(result.path(), result.callers(), result.iteration(), result.calls(), result.errors(),
                result.wallNanos(), result.processCpuNanos(), result.allocatedBytes(), result.serverCpuNanos(),
                compilingNanos, result.longestCallNanos(), result.idleCallers());
    }

    private static IterationResult stalled(IterationResult result, long longestCallNanos, int idleCallers) {
        return new IterationResult(result.path(), result.callers(), result.iteration(), result.calls(), result.errors(),
                result.wallNanos(), result.processCpuNanos(), result.allocatedBytes(), result.serverCpuNanos(),
                result.compilingNanos(), longestCallNanos, idleCallers);
    }

    /** A path's summary in a report: three identical iterations, so that its error is 0. */
    private record Row(Variant variant, Callers callers, UserPath path, long microsPerCall, long bytesPerCall) {
    }

    private static Row after(Callers callers, UserPath path, long microsPerCall, long bytesPerCall) {
        return new Row(Variant.AFTER, callers, path, microsPerCall, bytesPerCall);
    }

    private static String report(Row... rows) {
        PathSummaries summaries = new PathSummaries();
        for (Row row : rows) {
            for (int i = 0; i < 3; i++) {
                summaries.add(row.variant(), iteration(row.path(), row.callers(), row.microsPerCall(),
                        row.bytesPerCall(), 0));
            }
        }
        return PathCostReport.render(summaries);
    }
}
