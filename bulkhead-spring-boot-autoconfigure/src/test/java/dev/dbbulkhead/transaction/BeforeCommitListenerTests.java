package dev.dbbulkhead.transaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.dbbulkhead.CommitOutcomeUnknownException;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * A {@code @TransactionalEventListener(BEFORE_COMMIT)} that throws, under Spring Boot's
 * {@code DataSourceTransactionManager}: a known rollback whose own exception reaches the caller.
 */
class BeforeCommitListenerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2")
            .withUserConfiguration(Listening.class);

    @Test
    void aThrowingBeforeCommitListenerRollsBackAndItsOwnExceptionReachesTheCaller() {
        runner.run(context -> {
            Entries entries = context.getBean(Entries.class);

            Throwable thrown = catchThrowable(() -> entries.writeThenPublish(9201));

            assertThat(thrown).isExactlyInstanceOf(Refused.class).isNotInstanceOf(CommitOutcomeUnknownException.class)
                    .hasMessage("refused before commit: 9201");
            assertThat(entries.count(9201)).as("rolled back").isZero();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Listening {

        @Bean
        Entries entries(DataSource dataSource, ApplicationEventPublisher events) {
            return new Entries(new JdbcTemplate(dataSource), events);
        }

        @Bean
        Refuser refuser() {
            return new Refuser();
        }
    }

    record Written(int id) {
    }

    static final class Refused extends RuntimeException {

        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    static class Refuser {

        @TransactionalEventListener(phase = TransactionPhase.BEFORE_COMMIT)
        void refuse(Written written) {
            throw new Refused("refused before commit: " + written.id());
        }
    }

    static class Entries {

        private final JdbcTemplate jdbc;
        private final ApplicationEventPublisher events;

        Entries(JdbcTemplate jdbc, ApplicationEventPublisher events) {
            this.jdbc = jdbc;
            this.events = events;
        }

        @DbBulkhead("orders")
        public void writeThenPublish(int id) {
            jdbc.update("INSERT INTO entries VALUES (?)", id);
            events.publishEvent(new Written(id));
        }

        int count(int id) {
            return jdbc.queryForObject("SELECT count(*) FROM entries WHERE id = ?", Integer.class, id);
        }
    }
}
