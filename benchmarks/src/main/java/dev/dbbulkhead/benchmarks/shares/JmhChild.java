package dev.dbbulkhead.benchmarks.shares;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One JMH run in a JVM of its own, on the classpath of one build: how a benchmark of this build and the same
 * benchmark of an earlier build's jar run side by side in one session, each on its own code.
 */
final class JmhChild {

    private static final Pattern PRIMARY_RAW_DATA =
            Pattern.compile("\"primaryMetric\"[\\s\\S]*?\"rawData\"\\s*:\\s*\\[\\s*\\[([^\\]]*)\\]");

    private JmhChild() {
    }

    /**
     * Runs JMH's own main on {@code classpath} with {@code arguments}, one benchmark and one parameter set, and
     * returns the measured iterations (ns/op).
     */
    static double[] iterations(String classpath, List<String> arguments) throws IOException, InterruptedException {
        Path json = Files.createTempFile("jmh-", ".json");
        Path log = Files.createTempFile("jmh-", ".log");
        try {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "-Djava.awt.headless=true", "-cp", classpath, "org.openjdk.jmh.Main"));
            command.addAll(arguments);
            command.addAll(List.of("-rf", "json", "-rff", json.toString()));
            Process jmh = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (jmh.waitFor() != 0) {
                throw new IllegalStateException("JMH " + arguments + " failed:\n" + tail(log));
            }
            Matcher raw = PRIMARY_RAW_DATA.matcher(Files.readString(json));
            if (!raw.find()) {
                throw new IllegalStateException("JMH " + arguments + " wrote no result:\n" + tail(log));
            }
            return Arrays.stream(raw.group(1).split(",")).map(String::trim).mapToDouble(Double::parseDouble).toArray();
        } finally {
            Files.deleteIfExists(json);
            Files.deleteIfExists(log);
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }
}
