package dev.dbbulkhead.benchmarks.report;

import dev.dbbulkhead.benchmarks.load.RunConditions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.Properties;
import org.springframework.core.SpringVersion;

/** What the measurements ran on: hardware, JDK, PostgreSQL and library versions. */
public final class Environment {

    private Environment() {
    }

    /** A Markdown list describing this JVM and machine; {@code postgresVersion} comes from the server itself. */
    public static String describe(String postgresVersion) {
        Properties versions = versions();
        Runtime runtime = Runtime.getRuntime();
        return "- measured: " + Instant.now() + "\n"
                + "- machine: " + runtime.availableProcessors() + " CPUs, "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch")
                + ", physical memory " + physicalMemoryGiB() + " GiB, 1-minute load average "
                + MarkdownTable.number(RunConditions.loadAverage(), 2) + " when this was written\n"
                + "- JDK: " + System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name") + " "
                + Runtime.version() + ", max heap " + runtime.maxMemory() / (1024 * 1024) + " MiB\n"
                + "- PostgreSQL: " + postgresVersion + " (embedded, local; fsync and synchronous_commit off)\n"
                + "- Spring Framework " + springVersion() + " (Spring Boot BOM "
                + versions.getProperty("spring-boot") + "), HikariCP " + versions.getProperty("hikaricp")
                + ", pgJDBC " + versions.getProperty("pgjdbc") + ", Resilience4j " + versions.getProperty("resilience4j")
                + ", JMH " + versions.getProperty("jmh") + "\n";
    }

    /** Spring reads its version from its jar's manifest, which the benchmarks jar does not keep. */
    private static String springVersion() {
        String version = SpringVersion.getVersion();
        return version != null ? version : "as managed by the BOM";
    }

    private static String physicalMemoryGiB() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return MarkdownTable.number(os.getTotalMemorySize() / (1024.0 * 1024 * 1024), 1);
        }
        return "?";
    }

    private static Properties versions() {
        Properties versions = new Properties();
        try (InputStream in = Environment.class.getResourceAsStream("/dev/dbbulkhead/benchmarks/versions.properties")) {
            if (in != null) {
                versions.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return versions;
    }
}
