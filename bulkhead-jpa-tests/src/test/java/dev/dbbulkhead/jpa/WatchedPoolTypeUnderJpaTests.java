package dev.dbbulkhead.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionDetector;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.jpa.shop.Customer;
import dev.dbbulkhead.jpa.shop.CustomerRepository;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * A Spring Data JPA application that injects, looks up and casts its {@code HikariDataSource}, as some do to read
 * the pool's MXBean or resize it, runs with the starter ({@code ungated.mode=warn}, the default) as without it: the
 * watched pool keeps its class under the {@code JpaTransactionManager}, with HikariCP's MXBeans and Spring Boot's
 * pool meters, and the watch still counts what escapes the gates.
 */
@SpringBootTest(classes = {JpaTestApplication.class, WatchedPoolTypeUnderJpaTests.PoolReader.class,
        WatchedPoolTypeUnderJpaTests.Registrations.class}, webEnvironment = SpringBootTest.WebEnvironment.NONE)
class WatchedPoolTypeUnderJpaTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Autowired
    ApplicationContext context;

    @Autowired
    DataSource dataSource;

    @Autowired
    HikariDataSource pool;

    @Autowired
    PoolReader reader;

    @Autowired
    Registrations registrations;

    @Autowired
    PlatformTransactionManager transactionManager;

    @Autowired
    WatchedPools watched;

    @Autowired
    MeterRegistry meters;

    private UngatedConnectionDetector detector() {
        return watched.detectors().stream().filter(detector -> detector.pool().equals("dataSource")).findFirst()
                .orElseThrow();
    }

    @Test
    void anApplicationThatInjectsLooksUpAndCastsItsHikariPoolRunsUnderJpaAsWithoutTheStarter() throws SQLException {
        HikariDataSource cast = (HikariDataSource) dataSource;

        assertThat(transactionManager).isInstanceOf(JpaTransactionManager.class);
        assertThat(watched.isWatched(dataSource)).as("watched").isTrue();
        assertThat(context.getBean(HikariDataSource.class)).isSameAs(dataSource).isSameAs(pool).isSameAs(cast)
                .isSameAs(reader.pool);

        long ungatedBefore = detector().connections();
        assertThat(registrations.registerAndCountActiveConnections("ada"))
                .as("the admitted JPA transaction's connection, on the pool's MXBean").isOne();
        assertThat(detector().connections()).as("gated work is not reported").isEqualTo(ungatedBefore);
        assertThat(cast.getHikariPoolMXBean().getTotalConnections()).isPositive();

        String poolName = cast.getPoolName();
        assertThat(meters.get("hikaricp.connections.max").tag("pool", poolName).gauge().value())
                .isEqualTo(cast.getMaximumPoolSize());
        assertThat(meters.find("hikaricp.connections").tag("pool", poolName).gauge()).isNotNull();

        int size = cast.getMaximumPoolSize();
        try {
            cast.getHikariConfigMXBean().setMaximumPoolSize(size + 2);
            assertThat(pool.getMaximumPoolSize()).isEqualTo(size + 2);
        } finally {
            cast.getHikariConfigMXBean().setMaximumPoolSize(size);
        }

        try (Connection outside = pool.getConnection()) {
            assertThat(outside.isValid(1)).isTrue();
        }
        assertThat(detector().connections()).as("a borrow from the cast pool outside the gates is counted")
                .isEqualTo(ungatedBefore + 1);
    }

    /** Code that wants the pool's own class injected. */
    @Service
    static class PoolReader {

        final HikariDataSource pool;

        PoolReader(HikariDataSource pool) {
            this.pool = pool;
        }
    }

    /** A gated entry on a Spring Data repository that reads the pool it runs on. */
    @Service
    static class Registrations {

        private final CustomerRepository customers;
        private final HikariDataSource pool;

        Registrations(CustomerRepository customers, HikariDataSource pool) {
            this.customers = customers;
            this.pool = pool;
        }

        @DbBulkhead("shop")
        public int registerAndCountActiveConnections(String name) {
            customers.saveAndFlush(new Customer(name));
            return pool.getHikariPoolMXBean().getActiveConnections();
        }
    }
}
