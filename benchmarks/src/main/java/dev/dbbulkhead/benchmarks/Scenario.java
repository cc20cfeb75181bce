package dev.dbbulkhead.benchmarks;

import java.util.List;

/**
 * One scenario of the benchmark suite, as {@link Scenarios} registers it: the name it is run by, what it measures in
 * one line, the targets its results are judged against (none for a scenario that only measures), the options it
 * takes besides {@code --out} and {@code --quick}, and how it runs.
 *
 * @param options           each as the help shows it, its name then its value ({@code --before JAR})
 * @param sharesEnvironment whether its report leaves the machine and the versions to environment.md, beside the
 *                          gate cost's, rather than writing them into its own report
 */
public record Scenario(String name, String description, List<String> targets, List<String> options,
                       boolean sharesEnvironment, Runner runner) {

    public Scenario {
        targets = List.copyOf(targets);
        options = List.copyOf(options);
    }

    /** The names of its options, without their values. */
    public List<String> optionNames() {
        return options.stream().map(option -> option.split(" ")[0]).toList();
    }

    /** The same scenario run by {@code other}: for tests of the suite, which must not measure anything. */
    public Scenario withRunner(Runner other) {
        return new Scenario(name, description, targets, options, sharesEnvironment, other);
    }

    /** How a scenario runs, in two steps so that a mistyped option is refused before anything runs. */
    @FunctionalInterface
    public interface Runner {

        /**
         * Reads the options of {@code invocation} and returns the run.
         *
         * @throws IllegalArgumentException for an option value it cannot read
         */
        Run prepare(Invocation invocation);
    }

    /** A scenario ready to run: it writes its report into the invocation's folder. */
    @FunctionalInterface
    public interface Run {

        void run() throws Exception;
    }
}
