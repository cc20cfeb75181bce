package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.testing.PostgresServer;
import dev.dbbulkhead.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * The CPU time the PostgreSQL server's processes have spent, read from {@code /proc}: a path that costs the
 * database more (more statements, more round trips) shows here even when the JVM's own CPU does not move, and on
 * a machine where the JVM and the server share the CPUs, the server's CPU is part of what a call costs.
 *
 * <p>The server is found from one of its backends: {@code pg_backend_pid()} is a process of this machine when the
 * server runs here, and its parent is the postmaster. The server's CPU is then the postmaster's own and its
 * children's (backends, WAL writer, checkpointer, autovacuum), plus the time of children that already ended, which
 * the kernel adds to the postmaster's {@code cutime}/{@code cstime} when it reaps them. Where that cannot be read
 * (another machine's server, a container's, no {@code /proc}) the time is {@link #NOT_MEASURED}, never 0.
 */
public final class ServerCpu {

    /** The reading of a server whose processes cannot be read. */
    public static final long NOT_MEASURED = -1;

    private static final Path PROC = Path.of("/proc");
    private static final String SERVER_COMMAND = "postgres";
    /** Linux's usual USER_HZ, for a machine where {@code getconf} does not answer. */
    private static final long DEFAULT_TICKS_PER_SECOND = 100;

    private final long postmaster;
    private final long nanosPerTick;

    private ServerCpu(long postmaster, long nanosPerTick) {
        this.postmaster = postmaster;
        this.nanosPerTick = nanosPerTick;
    }

    /** The server of {@code database}, measured if its processes are this machine's and readable. */
    public static ServerCpu of(TestDatabase database) {
        return postmasterOf(database)
                .map(pid -> new ServerCpu(pid, 1_000_000_000L / ticksPerSecond()))
                .orElseGet(() -> new ServerCpu(NOT_MEASURED, 0));
    }

    /** True when {@link #nanos()} reads the server's processes. */
    public boolean measured() {
        return postmaster != NOT_MEASURED;
    }

    /** The server's processes' user and system CPU time since they started, or {@link #NOT_MEASURED}. */
    public long nanos() {
        return nanosExcept(NOT_MEASURED);
    }

    /**
     * As {@link #nanos()}, without the backend of process {@code instrument}: the session of a benchmark's own
     * observer, whose queries over {@code pg_stat_activity} cost more the more sessions the server has, so that its
     * cost would otherwise be counted to what it watches.
     */
    public long nanosExcept(long instrument) {
        if (!measured()) {
            return NOT_MEASURED;
        }
        try {
            Optional<ProcessStat> server = ProcessStat.read(postmaster);
            if (server.isEmpty()) {
                return NOT_MEASURED;
            }
            long ticks = server.get().cpuTicksWithEndedChildren();
            try (DirectoryStream<Path> processes = Files.newDirectoryStream(PROC, ServerCpu::isProcess)) {
                for (Path process : processes) {
                    Optional<ProcessStat> stat = ProcessStat.read(Long.parseLong(process.getFileName().toString()));
                    if (stat.isPresent() && stat.get().parent() == postmaster
                            && !process.getFileName().toString().equals(Long.toString(instrument))) {
                        ticks += stat.get().cpuTicks();
                    }
                }
            }
            return ticks * nanosPerTick;
        } catch (IOException | DirectoryIteratorException e) {
            return NOT_MEASURED;
        }
    }

    private static boolean isProcess(Path entry) {
        String name = entry.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
    }

    /** The postmaster's process id, if the server is a process of this machine whose {@code /proc} is readable. */
    private static Optional<Long> postmasterOf(TestDatabase database) {
        PostgresServer server = database.server();
        // A container's process ids are of its own namespace; a remote server's are another machine's.
        if (server.origin() == PostgresServer.Origin.TESTCONTAINERS || !onThisMachine(server.jdbcUrl())) {
            return Optional.empty();
        }
        Optional<ProcessStat> backend = backendOf(database);
        if (backend.isEmpty() || !backend.get().command().equals(SERVER_COMMAND)) {
            return Optional.empty();
        }
        long parent = backend.get().parent();
        return ProcessStat.read(parent).filter(stat -> stat.command().equals(SERVER_COMMAND)).map(stat -> parent);
    }

    /**
     * The server process of a connection of its own, read while the connection is open (the process ends with it);
     * closed before any measurement.
     */
    private static Optional<ProcessStat> backendOf(TestDatabase database) {
        try (Connection connection = database.connect();
             Statement statement = connection.createStatement();
             ResultSet pid = statement.executeQuery("SELECT pg_backend_pid()")) {
            pid.next();
            return ProcessStat.read(pid.getLong(1));
        } catch (SQLException e) {
            throw new IllegalStateException("Could not ask the server for its backend's process id", e);
        }
    }

    private static boolean onThisMachine(String jdbcUrl) {
        try {
            String host = URI.create(jdbcUrl.substring("jdbc:".length())).getHost();
            return host != null && InetAddress.getByName(host).isLoopbackAddress();
        } catch (IllegalArgumentException | UnknownHostException e) {
            return false;
        }
    }

    /** The kernel's clock ticks per second, the unit of {@code /proc/<pid>/stat}'s times. */
    static long ticksPerSecond() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            try (InputStream out = getconf.getInputStream()) {
                String answer = new String(out.readAllBytes(), StandardCharsets.US_ASCII).trim();
                return getconf.waitFor() == 0 ? Long.parseLong(answer) : DEFAULT_TICKS_PER_SECOND;
            }
        } catch (IOException | NumberFormatException e) {
            return DEFAULT_TICKS_PER_SECOND;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return DEFAULT_TICKS_PER_SECOND;
        }
    }

    /** The fields of {@code /proc/<pid>/stat} that tell a process's parent and CPU time. */
    record ProcessStat(String command, long parent, long userTicks, long systemTicks, long endedChildrenTicks) {

        /**
         * The process's stat, or empty if it has ended: gone before its directory was opened (no such file) or
         * while its file was read (the kernel's "no such process").
         */
        static Optional<ProcessStat> read(long pid) {
            try {
                return Optional.of(parse(Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"))));
            } catch (IOException ended) {
                return Optional.empty();
            }
        }

        /**
         * Parses a stat line, {@code pid (comm) state ppid ... utime stime cutime cstime ...}: the command name may
         * hold spaces and parentheses, so the fields are counted from the last ')'.
         */
        static ProcessStat parse(String line) {
            int open = line.indexOf('(');
            int close = line.lastIndexOf(')');
            String[] fields = line.substring(close + 2).trim().split(" ");
            // fields[0] is field 3 of proc(5), the state; ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
            return new ProcessStat(line.substring(open + 1, close), Long.parseLong(fields[1]),
                    Long.parseLong(fields[11]), Long.parseLong(fields[12]),
                    Long.parseLong(fields[13]) + Long.parseLong(fields[14]));
        }

        long cpuTicks() {
            return userTicks + systemTicks;
        }

        long cpuTicksWithEndedChildren() {
            return cpuTicks() + endedChildrenTicks;
        }
    }
}
