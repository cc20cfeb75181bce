package dev.dbbulkhead.benchmarks;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The help of {@code benchmarks.jar}: how to call it and every registered scenario, from the registry alone. */
final class ScenarioHelp {

    private static final String INDENT = "    ";

    private ScenarioHelp() {
    }

    /** The usage, the common options, then each scenario with its options and targets, in the order all runs them. */
    static String of(List<Scenario> scenarios) {
        StringBuilder help = new StringBuilder()
                .append("usage: java -jar benchmarks.jar SCENARIO [--out DIR] [--quick] [the scenario's options]\n")
                .append("       java -jar benchmarks.jar --help\n\n")
                .append("  --out DIR   where the Markdown tables and PNG charts go (default docs/benchmarks)\n")
                .append("  --quick     a trial run, a fraction of each scenario: its numbers mean nothing\n\n")
                .append("scenarios:\n")
                .append("  ").append(SuiteCommand.ALL).append('\n')
                .append(INDENT).append("every scenario below, in this order; each option goes to the scenarios that")
                .append(" take it\n");
        for (Scenario scenario : scenarios) {
            help.append("  ").append(scenario.name()).append('\n')
                    .append(INDENT).append(scenario.description()).append('\n');
            if (!scenario.options().isEmpty()) {
                help.append(INDENT).append("options: ").append(String.join(", ", scenario.options())).append('\n');
            }
            for (String target : scenario.targets()) {
                help.append(INDENT).append("target: ").append(target).append('\n');
            }
        }
        return help.toString();
    }

    /** The names a command may start with: all, then every scenario's. */
    static Set<String> names(List<Scenario> scenarios) {
        Set<String> names = new LinkedHashSet<>();
        names.add(SuiteCommand.ALL);
        scenarios.forEach(scenario -> names.add(scenario.name()));
        return names;
    }
}
