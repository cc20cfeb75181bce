package dev.dbbulkhead.benchmarks.pathcost;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.jdbc.ConnectionRequest;
import dev.dbbulkhead.jdbc.ungated.CallerRules;
import dev.dbbulkhead.jdbc.ungated.DetectionSettings;
import dev.dbbulkhead.jdbc.ungated.JobRefusals;
import dev.dbbulkhead.jdbc.ungated.PoolAdmission;
import dev.dbbulkhead.jdbc.ungated.StackSampling;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionDetector;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionListener;
import dev.dbbulkhead.jdbc.ungated.WatchedDataSource;
import dev.dbbulkhead.jdbc.ungated.WorkRules;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One borrow that only the default workload catches, without a database: the stack read for its call site, the
 * gate's admission and release, and nothing of a pool's (its connection a stand-in that does nothing). What the
 * path-cost harness adds to a transaction on this path, apart from the machine's noise around a real one.
 * {@code stackDepth} frames are put under the borrow first, as the application's own frames would be: the stack is
 * read frame by frame. {@code reads}: {@code every} reads each borrow's stack (as a rule that reads it, or an allowed
 * caller, has it read), {@code sampled} the default's sampling ({@link StackSampling#defaults()}).
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar org.openjdk.jmh.Main DefaultPathBorrowBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DefaultPathBorrowBenchmark {

    /** Extra frames below the borrow; 150 is about what a Spring MVC request on Tomcat has under a service. */
    @Param({"0", "50", "150"})
    public int stackDepth;

    /** Whether every borrow's stack is read, or the default's sample. */
    @Param({"every", "sampled"})
    public String reads;

    private WatchedDataSource dataSource;

    @Setup
    public void setUp() {
        Connection connection = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, arguments) -> switch (method.getName()) {
                    case "isClosed", "isReadOnly" -> false;
                    case "getAutoCommit" -> true;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == arguments[0];
                    default -> null;
                });
        DataSource pool = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, arguments) -> method.getName().equals("getConnection") ? connection : null);
        AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(16).build());
        CallerRules rules = CallerRules.defaults()
                .withApplicationPackages(List.of(DefaultPathBorrowBenchmark.class.getPackageName()));
        UngatedConnectionDetector detector = new UngatedConnectionDetector("main", new DetectionSettings(rules,
                false, DetectionSettings.DEFAULT_CALL_SITES, DetectionSettings.PLAIN_JDBC_ADVICE),
                UngatedConnectionListener.NONE);
        PoolAdmission admission = new PoolAdmission(workload -> gate, "orders", WorkRules.none(),
                ConnectionRequest.PLAIN, new JobRefusals(JobRefusals.Listener.NONE),
                reads.equals("every") ? StackSampling.everyBorrow() : StackSampling.defaults());
        dataSource = new WatchedDataSource(pool, detector, ConnectionRequest.PLAIN, admission);
    }

    @Benchmark
    public int borrow() throws SQLException {
        return descend(stackDepth);
    }

    private int descend(int frames) throws SQLException {
        if (frames > 0) {
            return descend(frames - 1);
        }
        try (Connection connection = dataSource.getConnection()) {
            return connection.hashCode();
        }
    }
}
