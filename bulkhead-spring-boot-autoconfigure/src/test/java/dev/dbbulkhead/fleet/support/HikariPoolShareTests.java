package dev.dbbulkhead.fleet.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.PostgresFixture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A fleet share applied to a real HikariCP pool on PostgreSQL. Loops wait for states, never for a time. */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class HikariPoolShareTests {

    @Test
    void aLowerShareClosesTheConnectionsAboveIt() {
        try (HikariDataSource pool = PostgresFixture.freshSchema().pool(4)) {
            HikariPoolShare share = new HikariPoolShare(pool);
            Await.until("four connections open", () -> share.connectionsInUse() == 4);

            share.apply(2);

            Await.until("the excess closed", () -> pool.getHikariPoolMXBean().getTotalConnections() <= 2);
            assertThat(pool.getMaximumPoolSize()).isEqualTo(2);
        }
    }

    @Test
    void aPoolFoundAboveItsMaximumWhenAskedWhatItHoldsClosesTheExcess() {
        try (HikariDataSource pool = PostgresFixture.freshSchema().pool(4)) {
            HikariPoolShare share = new HikariPoolShare(pool);
            Await.until("four connections open", () -> share.connectionsInUse() == 4);
            // As a connection HikariCP was opening while a lower share was applied leaves it: above its maximum,
            // past the eviction that share made.
            pool.setMaximumPoolSize(2);

            Await.until("the excess closed", () -> share.connectionsInUse() <= 2);
        }
    }
}
