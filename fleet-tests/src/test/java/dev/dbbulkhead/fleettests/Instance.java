package dev.dbbulkhead.fleettests;

import dev.dbbulkhead.fleettests.instance.FleetInstanceApplication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One instance of the application under test in a JVM of its own ({@link FleetInstanceApplication}), reaching the
 * database through a {@link TcpProxy} of its own, its output in a log file. Its sessions on the server bear its
 * name ({@code inst<N>}) as their {@code application_name}.
 */
final class Instance implements AutoCloseable {

    /**
     * Small and quick to start: the machine runs several instances, the server and the test at once. The JIT stops at
     * its first tier, which is enough for a load that waits on the server, and leaves the cores to the others.
     */
    private static final List<String> JVM_OPTIONS = List.of("-Xms64m", "-Xmx192m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xss512k");
    private static final Duration EXIT_WAIT = Duration.ofSeconds(10);

    private final String name;
    private final TcpProxy proxy;
    private final Process process;
    private final Path log;

    private Instance(String name, TcpProxy proxy, Process process, Path log) {
        this.name = name;
        this.proxy = proxy;
        this.process = process;
        this.log = log;
    }

    /**
     * Starts the instance {@code name} on the test's classpath, with {@code properties} ({@code key=value}) on its
     * command line after its data source, which points at its proxy to {@code databasePort}.
     */
    static Instance start(String name, int databasePort, Path directory, List<String> properties) {
        TcpProxy proxy = new TcpProxy(name, databasePort);
        Path log = directory.resolve(name + ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.add("-D" + FleetInstanceApplication.PARENT_PID + "=" + ProcessHandle.current().pid());
        command.add("-cp");
        command.add(testClassPath());
        command.add(FleetInstanceApplication.class.getName());
        command.add("--spring.config.name=fleet-instance");
        command.add("--spring.datasource.url=jdbc:postgresql://127.0.0.1:" + proxy.port() + "/postgres");
        // How the server tells the instances apart.
        command.add("--spring.datasource.hikari.data-source-properties.ApplicationName=" + name);
        properties.forEach(property -> command.add("--" + property));
        try {
            Files.createDirectories(directory);
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            return new Instance(name, proxy, process, log);
        } catch (IOException e) {
            proxy.close();
            throw new UncheckedIOException("Could not start instance " + name, e);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    TcpProxy proxy() {
        return proxy;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Whether the fleet member id {@code memberId} is this instance's: member ids begin with {@code <pid>@<host>}. */
    boolean owns(String memberId) {
        return memberId.startsWith(pid() + "@");
    }

    /** {@code kill -9}: the instance ends without a goodbye. */
    void kill() {
        process.destroyForcibly();
        awaitExit();
    }

    /**
     * {@code SIGTERM}: the application shuts down as on a clean stop; returns once the JVM has exited, killing it
     * if it has not within {@link #EXIT_WAIT}.
     *
     * @return whether it exited on its own
     */
    boolean terminate() {
        process.destroy();
        if (awaitExit()) {
            return true;
        }
        kill();
        return false;
    }

    /** Whether the instance's output has a line containing {@code text}. */
    boolean logged(String text) {
        return logLines().stream().anyMatch(line -> line.contains(text));
    }

    /** The last {@code count} lines of its output, for a failure message. */
    String logTail(int count) {
        List<String> lines = logLines();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
        proxy.close();
    }

    @Override
    public String toString() {
        return name + " (pid " + pid() + ")";
    }

    private boolean awaitExit() {
        try {
            return process.waitFor(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private List<String> logLines() {
        try {
            // Leniently decoded: a line cut short by a kill must not make the rest unreadable.
            return new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the log of " + name, e);
        }
    }

    /** Surefire runs the tests from a manifest-only jar and names the real classpath in this property. */
    private static String testClassPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }
}
