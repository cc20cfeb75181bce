package dev.dbbulkhead.jdbc.ungated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.HeldPlaces;
import dev.dbbulkhead.jdbc.ConnectionRequest;
import dev.dbbulkhead.testing.PostgresFixture;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Admission where connections are taken, on real PostgreSQL: when a borrow outside every admitted operation has its
 * stack read — each one a rule or the allowed callers need, only a pool's first ones and a sample otherwise — and
 * what is known without it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class PoolAdmissionStackReadingTests {

    private static final CallerRules RULES = CallerRules.defaults()
            .withApplicationPackages(List.of(PoolAdmissionStackReadingTests.class.getPackageName()));

    /** Reads each of the first 3 borrows, then those a counter picks: every 4th call, each counting for 4. */
    private static StackSampling firstThreeThenEveryFourth() {
        AtomicLong calls = new AtomicLong();
        return StackSampling.of(3, 4, () -> calls.incrementAndGet() % 4 == 0);
    }

    /** Reads no borrow's stack unless something else asks for it. */
    private static final StackSampling NONE_READ = StackSampling.of(0, 1_000_000, () -> false);

    private static HikariDataSource pool;

    private final AdmissionGate gate = new AdmissionGate("orders",
            GateConfig.builder().maxConcurrent(1).maxQueued(0).build());
    private final JobRefusals jobRefusals = new JobRefusals(JobRefusals.Listener.NONE);

    @BeforeAll
    static void openPool() {
        pool = PostgresFixture.freshSchema().pool(2);
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    private WatchedDataSource admitted(WorkRules rules, StackSampling sampling, boolean refuse) {
        PoolAdmission admission = new PoolAdmission(workload -> gate, "orders", rules, ConnectionRequest.PLAIN,
                jobRefusals, sampling);
        DetectionSettings settings = new DetectionSettings(RULES, refuse, DetectionSettings.DEFAULT_CALL_SITES,
                DetectionSettings.PLAIN_JDBC_ADVICE);
        return new WatchedDataSource(pool, new UngatedConnectionDetector("main", settings,
                UngatedConnectionListener.NONE), ConnectionRequest.PLAIN, admission);
    }

    private static void borrowFromTheSite(WatchedDataSource dataSource, int times) throws SQLException {
        for (int i = 0; i < times; i++) {
            try (Connection connection = dataSource.getConnection()) {
                assertThat(connection.isValid(1)).isTrue();
            }
        }
    }

    /** Each kept site as {@code method=borrows}. */
    private static List<String> countsBySite(WatchedDataSource dataSource) {
        return dataSource.detector().report().callSites().stream()
                .map(count -> count.site().methodName() + "=" + count.connections()).toList();
    }

    @Test
    void eachOfAPoolsFirstBorrowsIsReadThenOnlyTheSampledOnesEachCountingForTheBorrowsItStandsFor()
            throws SQLException {
        WatchedDataSource dataSource = admitted(WorkRules.none(), firstThreeThenEveryFourth(), false);

        borrowFromTheSite(dataSource, 3);
        assertThat(countsBySite(dataSource)).containsExactly("borrowFromTheSite=3");

        // Six more: the 4th call of the picker reads one, which stands for four.
        borrowFromTheSite(dataSource, 6);
        assertThat(countsBySite(dataSource)).containsExactly("borrowFromTheSite=7");
        assertThat(dataSource.detector().connections()).as("the total counts every borrow, read or not")
                .isEqualTo(9);
        assertThat(dataSource.admission().classified()).containsEntry("default orders", 9L);
    }

    @Test
    void aRuleThatReadsTheStackHasEveryBorrowRead() throws SQLException {
        WorkRules matchingNothing = new WorkRules(List.of(new WorkRules.Rule(WorkRules.Kind.CALLER,
                "com.example.nothing", "orders")), Map.of(), WorkRules.Steps.NONE);
        WatchedDataSource dataSource = admitted(matchingNothing, NONE_READ, false);

        borrowFromTheSite(dataSource, 5);

        assertThat(countsBySite(dataSource)).containsExactly("borrowFromTheSite=5");
    }

    @Test
    void refusingWhatOnlyTheDefaultCaughtHasEveryBorrowReadToNameItsSite() throws SQLException {
        WatchedDataSource dataSource = admitted(WorkRules.none(), NONE_READ, true);

        assertThatThrownBy(() -> borrowFromTheSite(dataSource, 1)).isInstanceOf(UngatedConnectionException.class)
                .hasMessageContaining("borrowFromTheSite");
    }

    @Test
    void withNoRuleReadingTheStackABorrowNotSampledIsAdmittedByTheDefaultAndCountedWithoutASite()
            throws SQLException {
        WatchedDataSource dataSource = admitted(WorkRules.none(), NONE_READ, false);

        borrowFromTheSite(dataSource, 4);

        assertThat(countsBySite(dataSource)).isEmpty();
        assertThat(dataSource.detector().connections()).isEqualTo(4);
        assertThat(dataSource.admission().classified()).containsEntry("default orders", 4L);
    }

    @Test
    void workMarkedWhereItBeginsIsRecognisedUnderItsRuleAndNotAdmitted() throws Exception {
        WatchedDataSource dataSource = admitted(WorkRules.none(), NONE_READ, false);

        try (HeldPlaces held = HeldPlaces.of(gate)) {
            UngatedWork.allow("health endpoint", () -> {
                borrowFromTheSite(dataSource, 2);
                return null;
            });
            assertThatThrownBy(() -> borrowFromTheSite(dataSource, 1)).as("the same borrow, unmarked, is admitted")
                    .isInstanceOf(BulkheadRejectedException.class);
        }

        assertThat(dataSource.detector().report().recognised()).containsEntry("health endpoint", 2L);
        assertThat(dataSource.admission().classified()).containsEntry("default orders", 1L);
    }

    @Test
    void aRefusedBorrowWhoseStackWasNotReadHasItReadThenToNameTheScheduledRunItSkips() throws Exception {
        WorkRules runners = new WorkRules(List.of(), Map.of(WorkRules.Kind.SCHEDULED,
                List.of(Runner.class.getName())), WorkRules.Steps.NONE);
        WatchedDataSource dataSource = admitted(runners, NONE_READ, false);

        try (HeldPlaces held = HeldPlaces.of(gate)) {
            assertThatThrownBy(() -> Runner.run(dataSource))
                    .isInstanceOf(BulkheadRejectedException.class);
        }

        assertThat(jobRefusals.byJob()).containsExactly(Map.entry("scheduled job " + Job.class.getName()
                + ".archive", 1L));
        assertThat(countsBySite(dataSource)).as("the refusal's read names the run, not a site").isEmpty();
    }

    /** Stands for a scheduler's runner: the frame nearest it is the method run. */
    static final class Runner {

        static void run(WatchedDataSource dataSource) throws SQLException {
            Job.archive(dataSource);
        }
    }

    /** A scheduled method. */
    static final class Job {

        static void archive(WatchedDataSource dataSource) throws SQLException {
            borrowFromTheSite(dataSource, 1);
        }
    }
}
