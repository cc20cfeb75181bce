package dev.dbbulkhead.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** Files of the repository that tests read (the docs they check against the code), wherever Maven runs them. */
public final class RepositoryFiles {

    private RepositoryFiles() {
    }

    /**
     * {@code relative} (such as {@code docs/reference/endpoint.md}) in the nearest directory above the working one
     * that has it: Maven runs each module's tests in the module's directory.
     */
    public static Path path(String relative) {
        for (Path directory = Path.of("").toAbsolutePath(); directory != null; directory = directory.getParent()) {
            Path candidate = directory.resolve(relative);
            if (Files.exists(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError("No " + relative + " in " + Path.of("").toAbsolutePath() + " or above it");
    }
}
