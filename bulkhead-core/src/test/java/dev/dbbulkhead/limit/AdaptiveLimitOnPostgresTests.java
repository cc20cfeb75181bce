package dev.dbbulkhead.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.testing.PostgresFixture;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The adaptive limit on a real PostgreSQL, as a plain-JDBC user would build it. Drivers run until the limit's own
 * change reports count the latches down; only states are asserted, never how long anything took. The no-load hold
 * time is measured once, on FAST, at the start: a later probe would learn whichever operation ran then.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang
class AdaptiveLimitOnPostgresTests {

    private static final int CEILING = 8;
    private static final int DRIVERS = 8;
    /*
     * Both operations wait on the server instead of computing: how long they hold a permit then depends on neither
     * the number of CPUs nor what else the machine runs, so the limit's decisions do not either. SLOW holds its
     * permit five times as long as FAST, far past the limit's tolerance of 1.25.
     */
    private static final String SLOW = "SELECT pg_sleep(0.1)";
    private static final String FAST = "SELECT pg_sleep(0.02)";

    private final Queue<LimitChange> changes = new ConcurrentLinkedQueue<>();
    private final CountDownLatch fell = new CountDownLatch(1);
    private final CountDownLatch roseBack = new CountDownLatch(1);
    private final AdaptiveLimit limit = new AdaptiveLimit(AdaptiveLimitConfig.builder().minConcurrent(1)
            .maxConcurrent(CEILING).probeInterval(Duration.ofHours(1)).build(), CEILING, this::changed);

    private void changed(LimitChange change) {
        changes.add(change);
        if (change.to() < change.from()) {
            fell.countDown();
        } else if (change.to() == CEILING) {
            roseBack.countDown();
        }
    }

    @Test
    @DisplayName("slow transactions lower B through the gate's resize, fast ones raise it back; rollbacks teach nothing")
    void fallsUnderSlowTransactionsAndRisesBack() throws Exception {
        try (HikariDataSource pool = PostgresFixture.freshSchema().pool(CEILING);
             ExecutorService drivers = Executors.newVirtualThreadPerTaskExecutor()) {
            AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(CEILING)
                    .maxQueued(DRIVERS).queueWait(Duration.ofMinutes(1)).build(), limit);
            limit.drive(gate);
            JdbcBulkhead orders = new JdbcBulkhead(gate, pool);

            while (limit.snapshot().noLoadNanos() == 0) {
                run(orders, FAST);
            }
            for (int i = 0; i < 3 * GradientLimit.WINDOW_MIN_SAMPLES; i++) {
                assertThatExceptionOfType(SQLException.class).isThrownBy(() -> orders.transaction(connection -> {
                    run(connection.createStatement(), SLOW);
                    throw new SQLException("the work's own failure");
                }));
            }
            assertThat(limit.snapshot().observedNanos()).as("rolled-back operations never make a window").isZero();
            assertThat(gate.config().maxConcurrent()).isEqualTo(CEILING);

            until(fell, drivers, orders, SLOW);
            int lowered = gate.config().maxConcurrent();
            assertThat(lowered).isBetween(1, CEILING - 1);
            assertThat(gate.config().maxQueued()).as("Q as configured").isEqualTo(DRIVERS);

            until(roseBack, drivers, orders, FAST);
            assertThat(limit.snapshot().learnt()).isEqualTo(CEILING);
            assertThat(changes).allSatisfy(change -> assertThat(change.from()).isNotEqualTo(change.to()));
            assertThat(gate.active()).isZero();
            assertThat(gate.availableExecutionPermits()).isEqualTo(gate.config().maxConcurrent());
        }
    }

    /** {@value #DRIVERS} drivers run {@code sql} as transactions until {@code latch} is counted down. */
    private static void until(CountDownLatch latch, ExecutorService drivers, JdbcBulkhead bulkhead, String sql)
            throws Exception {
        List<Future<?>> running = new ArrayList<>();
        for (int d = 0; d < DRIVERS; d++) {
            running.add(drivers.submit(() -> {
                while (latch.getCount() > 0) {
                    run(bulkhead, sql);
                }
                return null;
            }));
        }
        latch.await();
        for (Future<?> driver : running) {
            driver.get();
        }
    }

    private static void run(JdbcBulkhead bulkhead, String sql) throws SQLException {
        bulkhead.transaction(connection -> run(connection.createStatement(), sql));
    }

    private static Object run(Statement statement, String sql) throws SQLException {
        try (statement) {
            statement.executeQuery(sql).close();
            return null;
        }
    }
}
