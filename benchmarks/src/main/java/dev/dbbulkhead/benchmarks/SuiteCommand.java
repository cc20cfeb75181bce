package dev.dbbulkhead.benchmarks;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of {@code benchmarks.jar} over a registry of scenarios: {@code SCENARIO [--out DIR] [--quick]
 * [options]} runs that scenario, {@code all} every one in the registry's order; {@code --help}, nothing, or a name
 * the registry does not have shows the help. Every option is read before the first scenario runs, so that a mistyped
 * one does not wait for an hour of the others.
 */
final class SuiteCommand {

    static final String ALL = "all";
    /** The exit status of a command that could not be read. */
    static final int USAGE = 2;

    private final List<Scenario> scenarios;
    private final Finish finish;

    /** What follows the scenarios of one command: the environment they ran in. */
    @FunctionalInterface
    interface Finish {

        void after(List<Scenario> ran, Path out) throws Exception;
    }

    SuiteCommand(List<Scenario> scenarios, Finish finish) {
        this.scenarios = List.copyOf(scenarios);
        this.finish = finish;
    }

    /** Runs {@code arguments} and returns the exit status: 0, or {@value #USAGE} for a command it cannot read. */
    int run(List<String> arguments, PrintStream out, PrintStream err) throws Exception {
        if (arguments.contains("--help") || arguments.contains("-h")) {
            out.print(ScenarioHelp.of(scenarios));
            return 0;
        }
        List<String> rest = new ArrayList<>(arguments);
        boolean quick = rest.remove("--quick");
        Path folder = Path.of("docs", "benchmarks");
        int outFlag = rest.indexOf("--out");
        if (outFlag >= 0 && outFlag + 1 < rest.size()) {
            folder = Path.of(rest.get(outFlag + 1));
            rest.subList(outFlag, outFlag + 2).clear();
        }
        if (rest.isEmpty() || rest.getFirst().startsWith("-")) {
            return refuse(err, "name a scenario, or all: " + String.join(", ", ScenarioHelp.names(scenarios)));
        }
        String name = rest.removeFirst();
        List<Scenario> chosen = name.equals(ALL) ? scenarios
                : scenarios.stream().filter(scenario -> scenario.name().equals(name)).toList();
        if (chosen.isEmpty()) {
            return refuse(err, "unknown scenario '" + name + "'; the known ones: "
                    + String.join(", ", ScenarioHelp.names(scenarios)));
        }
        List<Scenario.Run> runs = new ArrayList<>();
        try {
            ScenarioOptions options = ScenarioOptions.of(rest, name, chosen);
            for (Scenario scenario : chosen) {
                runs.add(scenario.runner().prepare(new Invocation(quick, folder, options.of(scenario))));
            }
        } catch (IllegalArgumentException unreadable) {
            return refuse(err, unreadable.getMessage());
        }
        Files.createDirectories(folder);
        for (Scenario.Run run : runs) {
            run.run();
        }
        finish.after(chosen, folder);
        return 0;
    }

    private int refuse(PrintStream err, String why) {
        err.println(why);
        err.println();
        err.print(ScenarioHelp.of(scenarios));
        return USAGE;
    }
}
