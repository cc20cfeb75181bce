package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.actuate.endpoint.BulkheadsEndpoint;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

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
            HeldTransaction firstOfAcme = new HeldTransaction(tenants, ACME);
            firstOfAcme.awaitRunning();
            HeldTransaction secondOfAcme = new HeldTransaction(tenants, ACME);
            Await.until("acme's second operation waits", () -> gate.queueLength() == 1);
            HeldTransaction globex = new HeldTransaction(tenants, GLOBEX);
            HeldTransaction initech = new HeldTransaction(tenants, INITECH);
            globex.awaitRunning();
            initech.awaitRunning();

            assertThat(busySessions(context)).as("one each of acme, globex and initech; one connection of B left free")
                    .isEqualTo(3);
            assertThat(secondOfAcme.running).as("acme runs its cap").isNotDone();

            firstOfAcme.releaseAndAwaitCommit();
            secondOfAcme.awaitRunning();
            assertThat(busySessions(context)).as("acme's second, beside globex and initech").isEqualTo(3);
            for (HeldTransaction holder : new HeldTransaction[] {secondOfAcme, globex, initech}) {
                holder.releaseAndAwaitCommit();
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
            HeldTransaction first = new HeldTransaction(tenants, ACME);
            HeldTransaction second = new HeldTransaction(tenants, ACME);
            first.awaitRunning();
            second.awaitRunning();
            assertThat(busySessions(context)).isEqualTo(2);
            first.releaseAndAwaitCommit();
            second.releaseAndAwaitCommit();
            assertThat(context.getBean(BulkheadsEndpoint.class).workload("tenants").rules().maxRunningPerKey())
                    .as("no cap").isNull();
        });
    }

    private static int busySessions(AssertableApplicationContext context) throws SQLException {
        return HeldTransaction.busySessions(context, APPLICATION_NAME);
    }
}
