package dev.dbbulkhead.benchmarks.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Consumer;

/** What every benchmark that runs JVMs of its own needs: the launcher, and a child's output line by line. */
public final class ChildProcesses {

    private ChildProcesses() {
    }

    /** The {@code java} launcher of this JVM, for a child that runs as this one does. */
    public static String java() {
        return ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** Hands each line of {@code stream} to {@code consumer} until it ends. */
    public static void lines(InputStream stream, Consumer<String> consumer) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            reader.lines().forEach(consumer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
