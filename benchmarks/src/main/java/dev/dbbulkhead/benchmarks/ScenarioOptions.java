package dev.dbbulkhead.benchmarks;

import java.util.ArrayList;
import java.util.List;

/**
 * The options of one command after its scenario's name, each a name and a value, and which scenario takes which:
 * under {@code all} an option goes to every scenario that takes it ({@code --before} to path-cost and shares alike).
 */
final class ScenarioOptions {

    /** Name, value, name, value, … as given. */
    private final List<String> pairs;

    private ScenarioOptions(List<String> pairs) {
        this.pairs = List.copyOf(pairs);
    }

    /**
     * @throws IllegalArgumentException for an option without a value, or one that none of {@code chosen} takes
     */
    static ScenarioOptions of(List<String> arguments, String name, List<Scenario> chosen) {
        for (int i = 0; i < arguments.size(); i += 2) {
            String option = arguments.get(i);
            if (!option.startsWith("--") || i + 1 >= arguments.size()) {
                throw new IllegalArgumentException(option.startsWith("--") ? option + " needs a value"
                        : "'" + option + "' is not an option: one scenario at a time, or all");
            }
            if (chosen.stream().noneMatch(scenario -> scenario.optionNames().contains(option))) {
                throw new IllegalArgumentException(name + " takes no option " + option + takes(chosen));
            }
        }
        return new ScenarioOptions(arguments);
    }

    /** The options {@code scenario} takes, in pairs as given. */
    List<String> of(Scenario scenario) {
        List<String> taken = new ArrayList<>();
        for (int i = 0; i < pairs.size(); i += 2) {
            if (scenario.optionNames().contains(pairs.get(i))) {
                taken.addAll(pairs.subList(i, i + 2));
            }
        }
        return taken;
    }

    private static String takes(List<Scenario> chosen) {
        List<String> options = chosen.stream().flatMap(scenario -> scenario.optionNames().stream()).distinct().toList();
        return options.isEmpty() ? "; it takes only --out and --quick"
                : "; it takes " + String.join(", ", options) + ", --out and --quick";
    }
}
