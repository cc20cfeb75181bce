package dev.dbbulkhead.benchmarks.pathcost;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The options of {@code path-cost}: {@code --quick}, {@code --forks N}, {@code --iteration-time 1.5s},
 * {@code --before JAR}, {@code --paths STARTER,TRANSACTIONAL}, {@code --callers 1,8,32,v64,v512}; also
 * {@code --warmup}, {@code --settle} and {@code --iterations}, as {@link LoadSettings} names them.
 *
 * @param forks  forks per path (and per build of a starter path)
 * @param before the benchmarks jar of the build before a change, whose starter paths run beside this build's
 * @param paths  the paths to run, in {@link UserPath} order
 */
record PathCostOptions(LoadSettings settings, int forks, Optional<Path> before, List<UserPath> paths) {

    /** Two forks: one JVM's JIT decisions can sit apart from another's, and round 2 runs the paths in reverse. */
    static final int FORKS = 2;

    PathCostOptions {
        if (forks < 1) {
            throw new IllegalArgumentException("at least one fork, not " + forks);
        }
        paths = List.copyOf(paths);
    }

    /** The options of {@code arguments}, which come in pairs of a name and a value; {@code quick} for --quick. */
    static PathCostOptions parse(boolean quick, List<String> arguments) {
        LoadSettings settings = quick ? LoadSettings.QUICK : LoadSettings.FULL;
        int forks = quick ? 1 : FORKS;
        Optional<Path> before = Optional.empty();
        List<UserPath> paths = List.of(UserPath.values());
        for (int i = 0; i < arguments.size(); i += 2) {
            String option = arguments.get(i);
            if (i + 1 >= arguments.size()) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            String value = arguments.get(i + 1);
            switch (option) {
                case "--forks" -> forks = Integer.parseInt(value);
                case "--before" -> before = Optional.of(existing(Path.of(value)));
                case "--paths" -> paths = Arrays.stream(value.split(",")).map(String::trim).map(UserPath::valueOf)
                        .distinct().sorted().toList();
                default -> settings = settings.with(option, value);
            }
        }
        return new PathCostOptions(settings, forks, before, paths);
    }

    private static Path existing(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("--before " + jar + ": no such file");
        }
        return jar;
    }

    /** The forks of the run, in the order they run. */
    List<ForkRun> plan() {
        return ForkRun.plan(paths, forks, before.isPresent());
    }
}
