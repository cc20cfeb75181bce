package dev.dbbulkhead.autoconfigure.saturation;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.BulkheadConfigurationException;
import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.Signals;
import dev.dbbulkhead.autoconfigure.ResolvedSettings;
import dev.dbbulkhead.jdbc.side.SideConnections;
import dev.dbbulkhead.metrics.DatabaseSignalsMeterBinder;
import dev.dbbulkhead.saturation.DatabaseSampler;
import dev.dbbulkhead.saturation.PostgresSignals;
import dev.dbbulkhead.saturation.SamplerSettings;
import dev.dbbulkhead.saturation.SaturationLimits;
import dev.dbbulkhead.saturation.support.ApplicationLogger;
import dev.dbbulkhead.saturation.support.DatabaseLimits;
import dev.dbbulkhead.saturation.support.DatabaseSignalsSampling;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The database's signals, with {@code db.bulkhead.database.signals.enabled=true}: one sampler for the server of the
 * primary data source, on a pool of one connection of its own made from that HikariCP pool's settings. Off by
 * default, so that adding the starter opens no connection an application did not ask for.
 */
@AutoConfiguration(after = BulkheadAutoConfiguration.class)
@ConditionalOnClass(HikariDataSource.class)
@ConditionalOnBean({BulkheadRegistry.class, DataSource.class})
@ConditionalOnProperty(prefix = BulkheadDatabaseSignalsAutoConfiguration.PREFIX, name = "enabled", havingValue = "true")
public final class BulkheadDatabaseSignalsAutoConfiguration {

    static final String PREFIX = BulkheadProperties.PREFIX + ".database.signals";

    @Bean
    @ConditionalOnMissingBean
    DatabaseSignalsSampling dbBulkheadDatabaseSignals(DataSource dataSource, BulkheadProperties properties,
            BulkheadRegistry registry) {
        SamplerSettings settings = settings(properties.getDatabase().getSignals());
        Duration recommendationWindow = recommendationWindow(properties.getDatabase().getSignals());
        HikariDataSource application = DataSourceUnwrapper.unwrap(dataSource, HikariConfigMXBean.class,
                HikariDataSource.class);
        if (application == null) {
            throw BulkheadConfigurationException.invalidProperty(PREFIX + ".enabled", true,
                    "needs the primary data source to be a HikariCP pool, whose settings its own connection copies;"
                            + " it is " + dataSource.getClass().getName());
        }
        // A sample stuck on a dead socket is given up after twice the query timeout.
        HikariDataSource sessions = SideConnections.copyOf(application, "signals", null, settings.queryTimeout(),
                settings.queryTimeout().multipliedBy(2));
        ApplicationLogger log = new ApplicationLogger(DatabaseSampler.class);
        DatabaseSampler sampler = new DatabaseSampler(sessions, new PostgresSignals(), settings, log);
        DatabaseLimits limits = DatabaseLimits.of(registry, limitSettings(registry, properties),
                settings.serverCpus(), recommendationWindow, new ApplicationLogger(SaturationLimits.class));
        return new DatabaseSignalsSampling(sampler, sessions, log, limits);
    }

    /** The meters of the database's signals, when the application has Micrometer. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static final class SignalMetrics {

        @Bean
        @ConditionalOnMissingBean
        DatabaseSignalsMeterBinder dbBulkheadDatabaseSignalsMeterBinder(DatabaseSignalsSampling sampling) {
            return new DatabaseSignalsMeterBinder(sampling.sampler(),
                    sampling.limits().map(DatabaseLimits::limits).orElse(null));
        }
    }

    /** The workloads that follow the database ({@code limit.database} steer or recommend), in registry order. */
    private static List<DatabaseLimits.Setting> limitSettings(BulkheadRegistry registry,
                                                              BulkheadProperties properties) {
        return registry.names().stream()
                .flatMap(name -> ResolvedSettings.databaseLimit(name, properties).stream())
                .toList();
    }

    /** The recommendation window, refused outside its range under its own key. */
    private static Duration recommendationWindow(Signals signals) {
        return ResolvedSettings.requireValid(PREFIX + ".recommendation-window", signals.getRecommendationWindow(),
                value -> {
                    if (value.compareTo(SaturationLimits.SHORTEST_RECOMMENDATION_WINDOW) < 0
                            || value.compareTo(SaturationLimits.LONGEST_RECOMMENDATION_WINDOW) > 0) {
                        throw new IllegalArgumentException("must be between 10s and 1h");
                    }
                    return value;
                });
    }

    /** Validates each key under its own name, then builds the settings. */
    private static SamplerSettings settings(Signals signals) {
        // A query timeout of the whole interval is valid for every valid interval: only the interval is judged here.
        Duration interval = ResolvedSettings.requireValid(PREFIX + ".interval", signals.getInterval(),
                value -> new SamplerSettings(value, value, SamplerSettings.UNKNOWN_CPUS).interval());
        Duration queryTimeout = ResolvedSettings.requireValid(PREFIX + ".query-timeout", signals.getQueryTimeout(),
                value -> new SamplerSettings(interval, value, SamplerSettings.UNKNOWN_CPUS).queryTimeout());
        Integer cpus = signals.getServerCpus();
        return ResolvedSettings.requireValid(PREFIX + ".server-cpus", cpus,
                value -> {
                    if (value != null && value == SamplerSettings.UNKNOWN_CPUS) {
                        throw new IllegalArgumentException("server cpus must be between 1 and 4096; leave it unset"
                                + " when not known");
                    }
                    return new SamplerSettings(interval, queryTimeout,
                            value == null ? SamplerSettings.UNKNOWN_CPUS : value);
                });
    }
}
