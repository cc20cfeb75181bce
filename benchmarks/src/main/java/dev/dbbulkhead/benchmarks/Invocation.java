package dev.dbbulkhead.benchmarks;

import dev.dbbulkhead.benchmarks.load.ScenarioSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What one scenario is asked to do: a trial run or the real one, where its files go, and the options meant for it.
 *
 * @param options the options it takes, as given: pairs of a name and a value
 */
public record Invocation(boolean quick, Path out, List<String> options) {

    public Invocation {
        options = List.copyOf(options);
    }

    /** The PostgreSQL scenarios' windows: a fraction of a second each for a trial run. */
    public ScenarioSettings settings() {
        return quick ? ScenarioSettings.smoke() : ScenarioSettings.full();
    }

    /** The jar after {@code --before}, if given: the benchmarks jar of an earlier build, run beside this one. */
    public Optional<Path> before() {
        int flag = options.indexOf("--before");
        return flag < 0 || flag + 1 >= options.size() ? Optional.empty() : Optional.of(Path.of(options.get(flag + 1)));
    }
}
