package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A cap on what one tenant runs at once ({@code fair-share.max-running-per-key}) on real PostgreSQL: the workload
 * {@code tenants} has B = 4 and a cap of 1 per key. Operations hold their connection inside an open transaction until
 * released, and the sessions are counted from outside, in {@code pg_stat_activity}, so that the cap is checked where
 * the connections are.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class RunningCapPerKeyApplicationTests {

    private static final String APPLICATION_NAME = "running-cap-tests";
    private static final OperationClass ACME = OperationClass.of(Criticality.DEFAULT, "acme");
    private static final OperationClass GLOBEX = OperationClass.of(Criticality.DEFAULT, "globex");
    private static final OperationClass INITECH = OperationClass.of(Criticality.DEFAULT, "initech");

    private final ApplicationContextRunner runner = MeteredEndpointApplications.runner(new SimpleMeterRegistry())
            .withPropertyValues("spring.datasource.hikari.maximum-pool-size=6",
                    "spring.datasource.hikari.data-source-properties.ApplicationName=" + APPLICATION_NAME,
                    "db.bulkhead.workloads.tenants.max-concurrent=4",
                    "db.bulkhead.workloads.tenants.max-queued=8",
                    "db.bulkhead.workloads.tenants.queue-wait=1m",
                    "db.bulkhead.workloads.tenants.fair-share.enabled=true",
                    "db.bulkhead.workloads.tenants.fair-share.max-running-per-key=1");

    @Test
    void aTenantRunningItsCapWaitsWithConnectionsFreeWhileAnotherTenantRunsAndGoesOnceItsOwnEnds() {
        runner.run(context -> {
            BulkheadTemplate tenants = context.getBean(BulkheadRegistry.class).template("tenants");
            AdmissionGate gate = tenants.gate();
            Holder firstOfAcme = new Holder(tenants, ACME);
            firstOfAcme.awaitRunning();
            Holder secondOfAcme = new Holder(tenants, ACME);
            Await.until("acme's second operation waits", () -> gate.queueLength() == 1);
            Holder globex = new Holder(tenants, GLOBEX);
            Holder initech = new Holder(tenants, INITECH);
            globex.awaitRunning();
            initech.awaitRunning();

            assertThat(busySessions(context)).as("one each of acme, globex and initech; one connection of B left free")
                    .isEqualTo(3);
            assertThat(secondOfAcme.running).as("acme runs its cap").isNotDone();

            firstOfAcme.releaseAndAwaitEnd();
            secondOfAcme.awaitRunning();
            assertThat(busySessions(context)).as("acme's second, beside globex and initech").isEqualTo(3);
            for (Holder holder : new Holder[] {secondOfAcme, globex, initech}) {
                holder.releaseAndAwaitEnd();
            }
            assertThat(gate.active()).isZero();
            assertThat(context.getBean(BulkheadsEndpoint.class).workload("tenants").rules().maxRunningPerKey())
                    .isEqualTo(1);
        });
    }

    @Test
    void withoutTheCapTheSameTenantTakesTwoConnectionsAtOnce() {
        runner.withPropertyValues("db.bulkhead.workloads.tenants.fair-share.max-running-per-key=0").run(context -> {
            BulkheadTemplate tenants = context.getBean(BulkheadRegistry.class).template("tenants");
            Holder first = new Holder(tenants, ACME);
            Holder second = new Holder(tenants, ACME);
            first.awaitRunning();
            second.awaitRunning();
            assertThat(busySessions(context)).isEqualTo(2);
            first.releaseAndAwaitEnd();
            second.releaseAndAwaitEnd();
            assertThat(context.getBean(BulkheadsEndpoint.class).workload("tenants").rules().maxRunningPerKey())
                    .as("no cap").isNull();
        });
    }

    /**
     * The pool's sessions inside an open transaction, counted by the server and, for agreement, by HikariCP; read from
     * a connection of the test's own, outside the pool.
     */
    private static int busySessions(AssertableApplicationContext context) {
        int server;
        try (Connection outside = SharedDatabase.DATABASE.connect();
             PreparedStatement count = outside.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE application_name = ? AND state = 'idle in transaction'")) {
            count.setString(1, APPLICATION_NAME);
            try (ResultSet result = count.executeQuery()) {
                result.next();
                server = result.getInt(1);
            }
        } catch (SQLException failure) {
            throw new IllegalStateException(failure);
        }
        int hikari = context.getBean(HikariDataSource.class).getHikariPoolMXBean().getActiveConnections();
        assertThat(server).as("busy sessions seen by the server and by HikariCP").isEqualTo(hikari);
        return hikari;
    }

    /** An operation of one key on a thread of its own: it runs a query, then holds its transaction until released. */
    private static final class Holder {

        private final CompletableFuture<String> running = new CompletableFuture<>();
        private final CountDownLatch release = new CountDownLatch(1);
        private final CompletableFuture<String> ended = new CompletableFuture<>();

        Holder(BulkheadTemplate template, OperationClass as) {
            Thread.ofVirtual().start(as.wrap(() -> {
                try {
                    template.executeWithoutResult(status -> {
                        new JdbcTemplate(template.dataSource().orElseThrow()).queryForObject("SELECT 1",
                                Integer.class);
                        running.complete("running");
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                    ended.complete("committed");
                } catch (RuntimeException | Error refused) {
                    ended.complete(refused.toString());
                    running.complete("ended before running: " + refused);
                }
            }));
        }

        /** Returns once the operation runs; fails at once when it was refused instead. */
        void awaitRunning() throws Exception {
            assertThat(running.get(30, TimeUnit.SECONDS)).isEqualTo("running");
        }

        void releaseAndAwaitEnd() throws Exception {
            release.countDown();
            assertThat(ended.get(30, TimeUnit.SECONDS)).isEqualTo("committed");
        }
    }
}
