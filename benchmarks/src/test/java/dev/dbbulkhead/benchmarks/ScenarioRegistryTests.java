package dev.dbbulkhead.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.testing.RepositoryFiles;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry of scenarios and the command line over it, with every runner replaced by one that records what it was
 * asked: nothing is measured.
 */
class ScenarioRegistryTests {

    private static final List<Scenario> REGISTERED = Scenarios.registered();

    @TempDir
    Path out;

    private final Map<String, List<String>> prepared = new LinkedHashMap<>();
    private final List<String> ran = new ArrayList<>();
    private final List<String> finishedAfter = new ArrayList<>();
    private final ByteArrayOutputStream standardOut = new ByteArrayOutputStream();
    private final ByteArrayOutputStream standardErr = new ByteArrayOutputStream();

    @Test
    void everyRegisteredScenarioHasANameOfItsOwnOtherThanAllAndAOneLineDescription() {
        List<String> names = REGISTERED.stream().map(Scenario::name).toList();

        assertThat(names).doesNotHaveDuplicates().doesNotContain(SuiteCommand.ALL).allMatch(name -> !name.isBlank());
        assertThat(REGISTERED).allSatisfy(scenario -> assertThat(scenario.description()).isNotBlank()
                .doesNotContain("\n"));
    }

    @Test
    void allPreparesEveryRegisteredScenarioBeforeRunningAnyThenRunsEachOnceInTheRegistrysOrder() throws Exception {
        int status = command().run(List.of("all", "--quick", "--out", out.toString()), print(standardOut),
                print(standardErr));

        List<String> names = REGISTERED.stream().map(Scenario::name).toList();
        assertThat(status).isZero();
        assertThat(prepared.keySet()).containsExactlyElementsOf(names);
        assertThat(ran).containsExactlyElementsOf(names);
        assertThat(finishedAfter).containsExactlyElementsOf(names);
    }

    @Test
    void theHelpListsEveryRegisteredScenarioWithItsDescriptionItsOptionsAndItsTargets() throws Exception {
        int status = command().run(List.of("--help"), print(standardOut), print(standardErr));

        String help = standardOut.toString(StandardCharsets.UTF_8);
        assertThat(status).isZero();
        assertThat(help).contains("\n  " + SuiteCommand.ALL + "\n");
        for (Scenario scenario : REGISTERED) {
            assertThat(help).contains("\n  " + scenario.name() + "\n    " + scenario.description() + "\n");
            scenario.options().forEach(option -> assertThat(help).contains(option));
            scenario.targets().forEach(target -> assertThat(help).contains("target: " + target + "\n"));
        }
        assertThat(ran).isEmpty();
    }

    @Test
    void aCommandWithoutAScenarioShowsTheHelpAndRunsNothing() throws Exception {
        int status = command().run(List.of(), print(standardOut), print(standardErr));

        assertThat(status).isEqualTo(SuiteCommand.USAGE);
        assertThat(standardErr.toString(StandardCharsets.UTF_8)).contains(ScenarioHelp.of(REGISTERED));
        assertThat(prepared).isEmpty();
    }

    @Test
    void anUnknownScenarioIsRefusedWithAMessageNamingEveryKnownOneAndNothingRuns() throws Exception {
        int status = command().run(List.of("gate-costs", "--out", out.toString()), print(standardOut),
                print(standardErr));

        String refusal = standardErr.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow();
        assertThat(status).isEqualTo(SuiteCommand.USAGE);
        assertThat(refusal).startsWith("unknown scenario 'gate-costs'; the known ones: " + SuiteCommand.ALL)
                .contains(REGISTERED.stream().map(Scenario::name).toList());
        assertThat(prepared).isEmpty();
        assertThat(ran).isEmpty();
    }

    @Test
    void underAllAnOptionGoesOnlyToTheScenariosThatTakeIt() throws Exception {
        int status = command().run(List.of("all", "--before", "before.jar", "--forks", "1", "--out", out.toString()),
                print(standardOut), print(standardErr));

        assertThat(status).isZero();
        for (Scenario scenario : REGISTERED) {
            List<String> expected = new ArrayList<>();
            if (scenario.optionNames().contains("--before")) {
                expected.addAll(List.of("--before", "before.jar"));
            }
            if (scenario.optionNames().contains("--forks")) {
                expected.addAll(List.of("--forks", "1"));
            }
            assertThat(prepared.get(scenario.name())).as(scenario.name()).isEqualTo(expected);
        }
        assertThat(prepared.get("shares")).containsExactly("--before", "before.jar");
    }

    @Test
    void anOptionTheScenarioDoesNotTakeIsRefusedBeforeAnythingRuns() throws Exception {
        int status = command().run(List.of("overload", "--before", "before.jar", "--out", out.toString()),
                print(standardOut), print(standardErr));

        assertThat(status).isEqualTo(SuiteCommand.USAGE);
        assertThat(standardErr.toString(StandardCharsets.UTF_8)).startsWith("overload takes no option --before");
        assertThat(prepared).isEmpty();
    }

    @Test
    void theHowToRunPageListsExactlyTheRegisteredScenariosInTheirOrder() throws Exception {
        String page = Files.readString(RepositoryFiles.path("docs/benchmarks/how-to-run.md"));
        Matcher row = Pattern.compile("(?m)^\\| `([a-z-]+)` \\|").matcher(page);
        List<String> listed = new ArrayList<>();
        while (row.find()) {
            listed.add(row.group(1));
        }

        assertThat(listed).containsExactlyElementsOf(REGISTERED.stream().map(Scenario::name).toList());
    }

    /** The command over the registered scenarios, each run by a recorder. */
    private SuiteCommand command() {
        List<Scenario> recording = REGISTERED.stream().map(scenario -> scenario.withRunner(invocation -> {
            prepared.put(scenario.name(), invocation.options());
            return () -> ran.add(scenario.name());
        })).toList();
        return new SuiteCommand(recording, (scenarios, folder) -> scenarios.forEach(s -> finishedAfter.add(s.name())));
    }

    private static PrintStream print(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }
}
