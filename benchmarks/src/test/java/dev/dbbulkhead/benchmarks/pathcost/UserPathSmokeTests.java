package dev.dbbulkhead.benchmarks.pathcost;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.gate.GateInstrumentation;
import dev.dbbulkhead.gate.GateListener;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.observation.BulkheadObservations;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Each application of the user-path benchmark starts, a call through it commits its row, and it passes the guard
 * and the instrumentation its path names, no more. Never how fast.
 */
class UserPathSmokeTests {

    private static final int ACCOUNT = 42;
    private static final Set<UserPath> METERED = EnumSet.of(UserPath.STARTER_METERS, UserPath.STARTER_OBSERVED,
            UserPath.STARTER_TRACED);

    @ParameterizedTest
    @EnumSource(UserPath.class)
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aCallThroughEachPathCommitsItsRow(UserPath path) throws SQLException {
        BenchDatabase database = BenchDatabase.create();

        try (PathApplication application = PathApplication.start(path, database.database(),
                AdmissionCounting.class)) {
            AtomicInteger resilience4jPermits = countResilience4jPermits(path, application);

            assertThat(application.credit(ACCOUNT)).isEqualTo(1);
            assertThat(application.credit(ACCOUNT)).isEqualTo(2);

            MeterRegistry meters = application.bean(MeterRegistry.class);
            assertThat(application.bean(AdmissionCount.class).admitted()).as("gate admissions")
                    .hasValue(path.starter() ? 2 : 0);
            assertThat(meters.find("db.bulkhead.admitted").counters()).as("admissions counted by the meters")
                    .extracting(Counter::count).containsExactlyElementsOf(METERED.contains(path) ? List.of(2.0)
                            : List.of());
            assertThat(meters.getMeters()).as("meters built from the bulkhead observations")
                    .noneMatch(meter -> meter.getId().getName().startsWith("dbbulkhead."));
            assertThat(application.beans(BulkheadObservations.class)).as("observations made")
                    .hasSize(path == UserPath.STARTER_TRACED ? 1 : 0);
            if (path == UserPath.STARTER_TRACED) {
                assertThat(application.bean(PathConfigurations.StandInTracer.class).stopped())
                        .as("observations the tracer saw").isGreaterThanOrEqualTo(2);
            }
            assertThat(resilience4jPermits).as("Resilience4j permits")
                    .hasValue(path == UserPath.RESILIENCE4J ? 2 : 0);
            if (path.starter()) {
                // The starter paths are measured with their pool watched for ungated work, as the starter does; on
                // the pool-level path each borrow is the default workload's, counted as the detector counts those.
                WatchedPools watched = application.bean(WatchedPools.class);
                // On the bound path each is admitted by the workload bound to the caller's thread, and reported by none.
                assertThat(watched.detectors()).as("watched pools").singleElement().satisfies(pool ->
                        assertThat(pool.connections()).isEqualTo(path == UserPath.POOL_ADMISSION ? 2 : 0));
                boolean atThePool = path == UserPath.POOL_ADMISSION || path == UserPath.POOL_ADMISSION_BOUND;
                assertThat(watched.admissions().values()).as("admission where connections are taken")
                        .hasSize(atThePool ? 1 : 0)
                        .allSatisfy(admission -> assertThat(admission.classified())
                                .containsEntry("default orders", path == UserPath.POOL_ADMISSION ? 2L : 0L)
                                .containsEntry("nested", 0L));
                if (path == UserPath.POOL_ADMISSION_BOUND) {
                    assertThat(watched.admissions().values()).singleElement().satisfies(admission ->
                            assertThat(admission.classified()).containsEntry("bound orders", 2L));
                }
            }
        }

        assertThat(committedBalance(database, ACCOUNT)).as("balance seen by another connection").isEqualTo(2);
    }

    /** Counts the gate's admissions the way an application's own instrumentation would, on every path alike. */
    @Configuration(proxyBeanMethods = false)
    static class AdmissionCounting {

        @Bean
        AdmissionCount admissionCount() {
            return new AdmissionCount(new AtomicInteger());
        }
    }

    record AdmissionCount(AtomicInteger admitted) implements GateInstrumentation {

        @Override
        public GateListener listener(String workload) {
            return new GateListener() {
                @Override
                public void onAdmitted(String admittedWorkload, long queueWaitNanos) {
                    admitted.incrementAndGet();
                }
            };
        }
    }

    /** Counts the calls Resilience4j's bulkhead lets through, on the path that has one. */
    private static AtomicInteger countResilience4jPermits(UserPath path, PathApplication application) {
        AtomicInteger permits = new AtomicInteger();
        if (path == UserPath.RESILIENCE4J) {
            application.bean(BulkheadRegistry.class).bulkhead("orders").getEventPublisher()
                    .onCallPermitted(permitted -> permits.incrementAndGet());
        }
        return permits;
    }

    private static long committedBalance(BenchDatabase database, int account) throws SQLException {
        try (Connection connection = database.database().connect();
             PreparedStatement select = connection.prepareStatement("SELECT balance FROM account WHERE id = ?")) {
            select.setInt(1, account);
            try (ResultSet balance = select.executeQuery()) {
                assertThat(balance.next()).isTrue();
                return balance.getLong(1);
            }
        }
    }
}
