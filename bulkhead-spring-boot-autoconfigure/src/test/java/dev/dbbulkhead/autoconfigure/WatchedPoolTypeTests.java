package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionException;
import dev.dbbulkhead.jdbc.ungated.UngatedWork;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.metrics.DataSourcePoolMetricsAutoConfiguration;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadata;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadataProvider;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * A pool the gates admit to keeps its class while it is watched for ungated work: an application that injects,
 * looks up and casts its {@code HikariDataSource} runs as without the starter, under the
 * {@code DataSourceTransactionManager}, with HikariCP's MXBeans and Spring Boot's pool metrics; and the watch sees
 * the borrows it saw before.
 */
@ExtendWith(OutputCaptureExtension.class)
class WatchedPoolTypeTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .with(SharedDatabase::onBootJdbc)
            .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class, UngatedWorkAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                    DataSourcePoolMetricsAutoConfiguration.class))
            .withPropertyValues("db.bulkhead.workloads.orders.max-concurrent=2",
                    "spring.datasource.hikari.pool-name=orders-pool");

    private static long ungatedConnections(AssertableApplicationContext context) {
        return context.getBean(WatchedPools.class).detectors().get(0).connections();
    }

    private static double gauge(AssertableApplicationContext context, String name, String tag, String value) {
        return context.getBean(MeterRegistry.class).get(name).tag(tag, value).gauge().value();
    }

    @Test
    void anApplicationThatInjectsLooksUpAndCastsItsHikariPoolRunsAsWithoutTheStarter() {
        runner.withBean(PoolReader.class).run(context -> {
            assertThat(context).hasNotFailed();
            DataSource dataSource = context.getBean(DataSource.class);
            HikariDataSource byClass = context.getBean(HikariDataSource.class);
            HikariDataSource cast = (HikariDataSource) dataSource;

            assertThat(context.getBean(WatchedPools.class).isWatched(dataSource)).as("watched").isTrue();
            assertThat(byClass).isSameAs(dataSource).isSameAs(cast).isSameAs(context.getBean(PoolReader.class).pool);
            assertThat(context.getBeanNamesForType(HikariDataSource.class)).containsExactly("dataSource");
            assertThat(DataSourceUnwrapper.unwrap(dataSource, HikariConfigMXBean.class, HikariDataSource.class))
                    .isSameAs(dataSource);
            assertThat(dataSource.unwrap(HikariDataSource.class)).isSameAs(dataSource);
            assertThat(dataSource.isWrapperFor(HikariDataSource.class)).isTrue();
            assertThat(dataSource).isEqualTo(cast).hasSameHashCodeAs(byClass);
            assertThat(cast.getPoolName()).isEqualTo("orders-pool");
            assertThat(context.getBean(PlatformTransactionManager.class))
                    .isInstanceOf(DataSourceTransactionManager.class);

            // A gated transaction holds one connection: the MXBean and Boot's pool metadata (what its
            // jdbc.connections.* meters read) see it on the pool.
            DataSourcePoolMetadata metadata = context.getBean(DataSourcePoolMetadataProvider.class)
                    .getDataSourcePoolMetadata(dataSource);
            assertThat(metadata).isNotNull();
            Integer[] activeInside = new Integer[2];
            context.getBean(BulkheadRegistry.class).template("orders").execute(status -> {
                context.getBean(JdbcTemplate.class).queryForObject("SELECT 1", Integer.class);
                activeInside[0] = cast.getHikariPoolMXBean().getActiveConnections();
                activeInside[1] = metadata.getActive();
                return null;
            });
            assertThat(activeInside).as("active connections by the MXBean and by Boot's pool metadata")
                    .containsExactly(1, 1);
            assertThat(cast.getHikariPoolMXBean().getTotalConnections()).isPositive();
            assertThat(ungatedConnections(context)).as("the gated borrow is not reported").isZero();

            double max = gauge(context, "hikaricp.connections.max", "pool", "orders-pool");
            assertThat(max).isEqualTo(cast.getMaximumPoolSize());
            assertThat(gauge(context, "jdbc.connections.max", "name", "dataSource")).isEqualTo(max);
            assertThat(context.getBean(MeterRegistry.class).find("hikaricp.connections").tag("pool", "orders-pool")
                    .gauge()).as("hikaricp.connections").isNotNull();

            cast.getHikariConfigMXBean().setMaximumPoolSize(7);
            assertThat(byClass.getMaximumPoolSize()).isEqualTo(7);
            assertThat(cast.getHikariConfigMXBean().getMaximumPoolSize()).isEqualTo(7);
        });
    }

    @Test
    void borrowsFromTheCastPoolAreWatchedAsBorrowsFromTheDataSourceWere() {
        runner.run(context -> {
            HikariDataSource pool = context.getBean(HikariDataSource.class);
            try (Connection outside = pool.getConnection()) {
                assertThat(outside.isValid(1)).isTrue();
            }
            assertThat(ungatedConnections(context)).isOne();
            assertThat(context.getBean(WatchedPools.class).detectors().get(0).report().callSites())
                    .singleElement().satisfies(count -> assertThat(count.site().toString())
                            .startsWith(getClass().getName() + ".lambda$borrowsFromTheCastPool"));

            try (Connection unwrapped = pool.unwrap(HikariDataSource.class).getConnection()) {
                assertThat(unwrapped.isValid(1)).isTrue();
            }
            assertThat(ungatedConnections(context)).as("unwrapping keeps the watch").isEqualTo(2);
        });
    }

    @Test
    void failModeRefusesABorrowFromTheCastPoolAndGatedWorkStillRuns() {
        runner.withPropertyValues("db.bulkhead.ungated.mode=fail").run(context -> {
            HikariDataSource pool = context.getBean(HikariDataSource.class);

            assertThat(catchThrowable(pool::getConnection)).isInstanceOf(UngatedConnectionException.class)
                    .hasMessageContaining("pool 'dataSource'");
            assertThat(catchThrowable(() -> pool.unwrap(HikariDataSource.class).getConnection()))
                    .isInstanceOf(UngatedConnectionException.class);
            Integer gated = context.getBean(BulkheadRegistry.class).template("orders").execute(status ->
                    context.getBean(JdbcTemplate.class).queryForObject("SELECT 2", Integer.class));
            assertThat(gated).isEqualTo(2);
            assertThat(UngatedWork.allow(() -> {
                try (Connection allowed = pool.getConnection()) {
                    return allowed.isValid(1);
                }
            })).isTrue();
        });
    }

    @Test
    void aBorrowWithCredentialsPassesTheWatchWhichNamesItsCaller() {
        runner.run(context -> {
            HikariDataSource pool = context.getBean(HikariDataSource.class);

            // HikariCP answers this form of borrow with its refusal, after the watch has seen it.
            assertThat(catchThrowable(() -> borrowWithCredentials(pool)))
                    .isInstanceOf(SQLFeatureNotSupportedException.class);

            assertThat(context.getBean(WatchedPools.class).detectors().get(0).report().callSites())
                    .singleElement().satisfies(count -> assertThat(count.site().toString())
                            .startsWith(getClass().getName() + ".borrowWithCredentials("));
        });
    }

    private static void borrowWithCredentials(DataSource pool) throws SQLException {
        pool.getConnection("someone", "secret").close();
    }

    @Test
    void closingTheContextClosesThePoolItself() {
        HikariDataSource[] pool = new HikariDataSource[1];
        runner.run(context -> {
            pool[0] = context.getBean(HikariDataSource.class);
            assertThat(pool[0].isClosed()).isFalse();
        });
        assertThat(pool[0].isClosed()).isTrue();
    }

    @Test
    void anApplicationsOwnSubclassOfHikariDataSourceKeepsItsTypeAndItsState() {
        runner.withUserConfiguration(OwnPoolConfiguration.class).run(context -> {
            assertThat(context).hasNotFailed();
            OwnPool pool = context.getBean(OwnPool.class);

            assertThat(context.getBean(DataSource.class)).isSameAs(pool);
            assertThat(context.getBean(WatchedPools.class).isWatched(pool)).isTrue();
            assertThat(pool.tenant()).as("the subclass's own state").isEqualTo("acme");
            try (Connection outside = pool.getConnection()) {
                assertThat(outside.isValid(1)).isTrue();
            }
            assertThat(ungatedConnections(context)).isOne();
            assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isPositive();
        });
    }

    @Test
    void aPoolOfAFinalClassIsLeftAsItIsUnwatchedWithAWarningNamingTheBeanAndWhy(CapturedOutput output) {
        runner.withUserConfiguration(FinalPoolConfiguration.class).run(context -> {
            assertThat(context).hasNotFailed();
            DataSource dataSource = context.getBean(DataSource.class);

            assertThat(dataSource.getClass()).isEqualTo(FinalPool.class);
            assertThat(context.getBean(WatchedPools.class).detectors()).isEmpty();
            assertThat(output).contains("DataSource bean 'dataSource' (" + FinalPool.class.getName()
                    + ") is not watched for connections borrowed outside every gate: its class is final");
        });
    }

    @Test
    void aPostProcessorOfTheApplicationsIsHandedTheWatchedBeanNotThePoolBehindIt() {
        runner.withBean(DataSourceSeen.class).run(context -> {
            assertThat(context).hasNotFailed();
            DataSource dataSource = context.getBean(DataSource.class);

            assertThat(context.getBean(WatchedPools.class).isWatched(dataSource)).isTrue();
            assertThat(context.getBean(DataSourceSeen.class).seen).isSameAs(dataSource);
        });
    }

    /** An application's post-processor that looks at the DataSource bean once it is made, as a decorator would. */
    static class DataSourceSeen implements BeanPostProcessor {

        volatile @Nullable Object seen;

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (beanName.equals("dataSource")) {
                seen = bean;
            }
            return bean;
        }
    }

    /** Code that wants the pool's own class injected, as some applications do. */
    static class PoolReader {

        final HikariDataSource pool;

        PoolReader(HikariDataSource pool) {
            this.pool = pool;
        }
    }

    /** An application's own pool class, with state of its own. */
    static class OwnPool extends HikariDataSource {

        private final String tenant;

        OwnPool(String tenant) {
            this.tenant = tenant;
        }

        public String tenant() {
            return tenant;
        }
    }

    /** A pool class nothing can extend. */
    static final class FinalPool extends HikariDataSource {
    }

    static HikariDataSource onSharedDatabase(HikariDataSource pool) {
        pool.setJdbcUrl(SharedDatabase.DATABASE.server().jdbcUrl());
        pool.setUsername(SharedDatabase.DATABASE.server().username());
        pool.setPassword(SharedDatabase.DATABASE.server().password());
        pool.setSchema(SharedDatabase.DATABASE.schema());
        pool.setMaximumPoolSize(2);
        return pool;
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnPoolConfiguration {

        @Bean
        OwnPool dataSource() {
            return (OwnPool) onSharedDatabase(new OwnPool("acme"));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FinalPoolConfiguration {

        @Bean
        FinalPool dataSource() {
            return (FinalPool) onSharedDatabase(new FinalPool());
        }
    }
}
