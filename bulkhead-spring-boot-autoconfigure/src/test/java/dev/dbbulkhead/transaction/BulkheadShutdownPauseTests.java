package dev.dbbulkhead.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A paused application is not a closing one: Spring's test context cache pauses the applications it keeps, and an
 * application paused and restarted must admit as before, while closing it still shuts its gates.
 */
class BulkheadShutdownPauseTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2");

    @Test
    void anApplicationPausedAndRestartedStillAdmitsItsWork() {
        runner.run(context -> {
            BulkheadTemplate orders = context.getBean(BulkheadRegistry.class).template("orders");

            context.pause();
            context.restart();

            assertThat(orders.gate().isShuttingDown()).isFalse();
            int answer = orders.execute(status -> 42);
            assertThat(answer).isEqualTo(42);
        });
    }

    @Test
    void closingTheApplicationStillShutsItsGates() {
        BulkheadTemplate[] orders = new BulkheadTemplate[1];
        runner.run(context -> orders[0] = context.getBean(BulkheadRegistry.class).template("orders"));

        assertThat(orders[0].gate().isShuttingDown()).isTrue();
    }
}
