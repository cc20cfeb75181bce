package dev.dbbulkhead.fleettests.instance;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * One instance of the fleet under test: the starter on a HikariCP pool with fleet coordination, one workload
 * ({@code orders}) and a load that keeps every connection it may have busy ({@link OrdersLoad}). Run by the test in
 * a JVM of its own, as {@code java -cp <the test classpath> ... --spring.config.name=fleet-instance --key=value...}.
 *
 * <p>With {@code -D}{@value #PARENT_PID} the instance exits when that process (the test JVM) is gone, so that a test
 * JVM that was killed leaves no instance behind.
 */
@SpringBootApplication
@EnableConfigurationProperties(LoadSettings.class)
public class FleetInstanceApplication {

    /** System property: the process whose end this instance does not outlive. */
    public static final String PARENT_PID = "fleet-instance.parent-pid";

    public static void main(String[] args) {
        String parent = System.getProperty(PARENT_PID);
        if (parent != null) {
            ProcessHandle.of(Long.parseLong(parent)).ifPresentOrElse(
                    handle -> handle.onExit().thenRun(() -> System.exit(1)), () -> System.exit(1));
        }
        SpringApplication.run(FleetInstanceApplication.class, args);
    }
}
