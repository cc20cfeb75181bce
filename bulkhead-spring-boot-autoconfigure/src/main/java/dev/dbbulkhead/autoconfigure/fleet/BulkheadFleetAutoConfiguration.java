package dev.dbbulkhead.autoconfigure.fleet;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.BulkheadConfigurationException;
import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.Fleet;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.FleetTotal;
import dev.dbbulkhead.autoconfigure.ResolvedSettings;
import dev.dbbulkhead.budget.ServerConnectionSlots;
import dev.dbbulkhead.fleet.ConcurrencyCeiling;
import dev.dbbulkhead.fleet.FleetCoordinator;
import dev.dbbulkhead.fleet.FleetMember;
import dev.dbbulkhead.fleet.FleetSettings;
import dev.dbbulkhead.fleet.FleetTotals;
import dev.dbbulkhead.fleet.GateShares;
import dev.dbbulkhead.fleet.PostgresFleetCoordinator;
import dev.dbbulkhead.fleet.ShareTarget;
import dev.dbbulkhead.fleet.support.ApplicationFleetLog;
import dev.dbbulkhead.fleet.support.FencingReadiness;
import dev.dbbulkhead.fleet.support.FleetConnections;
import dev.dbbulkhead.fleet.support.FleetMembership;
import dev.dbbulkhead.fleet.support.FleetPool;
import dev.dbbulkhead.fleet.support.HikariPoolShare;
import dev.dbbulkhead.fleet.support.SessionNames;
import dev.dbbulkhead.metrics.FleetMeterBinder;
import dev.dbbulkhead.saturation.FleetTotalPolicy;
import dev.dbbulkhead.saturation.SaturationLimits;
import dev.dbbulkhead.saturation.support.DatabaseSignalsSampling;
import dev.dbbulkhead.transaction.AdaptiveLimits;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * Fleet coordination through the shared PostgreSQL, with {@code db.bulkhead.fleet.coordination=postgres}: this
 * instance leases a share of {@code db.bulkhead.fleet.connection-budget} and applies it to the primary HikariCP pool
 * and to the gates of the workloads on it. Off by default; the start-up fleet check is unchanged either way.
 */
@AutoConfiguration(after = BulkheadAutoConfiguration.class)
@ConditionalOnClass(HikariDataSource.class)
@ConditionalOnBean({BulkheadRegistry.class, DataSource.class})
@ConditionalOnProperty(prefix = BulkheadProperties.PREFIX + ".fleet", name = "coordination", havingValue = "postgres")
public final class BulkheadFleetAutoConfiguration {

    private static final String PREFIX = BulkheadProperties.PREFIX + ".fleet.";

    private static final Log logger = LogFactory.getLog(BulkheadFleetAutoConfiguration.class);

    /** Static, as a post-processor must be: it prepares the pool before anything borrows from it. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static FleetPoolPreparation dbBulkheadFleetPoolPreparation(ObjectProvider<BulkheadProperties> properties,
            ConfigurableListableBeanFactory beanFactory) {
        return new FleetPoolPreparation(properties, beanFactory);
    }

    @Bean
    @ConditionalOnMissingBean
    FleetConnections dbBulkheadFleetConnections(DataSource dataSource, BulkheadProperties properties,
            FleetPoolPreparation preparation) {
        Timing timing = Timing.of(properties.getFleet());
        HikariDataSource pool = hikari(dataSource);
        SessionNames names = preparation.poolFor(pool).sessionNames();
        return new FleetConnections(pool, names == null ? null : names.coordinator(), timing.heartbeat(),
                timing.leaseTtl());
    }

    @Bean
    @ConditionalOnMissingBean
    FleetCoordinator dbBulkheadFleetCoordinator(FleetConnections connections, BulkheadProperties properties,
            ObjectProvider<DatabaseSignalsSampling> signals) {
        Fleet fleet = properties.getFleet();
        int budget = fleet.getConnectionBudget() != null
                ? ResolvedSettings.requireValid(PREFIX + "connection-budget", fleet.getConnectionBudget(),
                        BulkheadFleetAutoConfiguration::requirePositive)
                : derivedBudget(connections.dataSource(), fleet.getOtherConnections());
        FleetSettings timing = Timing.of(fleet).settings();
        FleetTotals totals = fleet.getTotal() == FleetTotal.DATABASE ? followingTheDatabase(signals) : null;
        return ResolvedSettings.requireValid(PREFIX + "table", fleet.getTable(),
                table -> totals == null
                        ? new PostgresFleetCoordinator(connections.dataSource(), table, budget,
                                timing.renewalLockWait(), timing.renewalTimeout())
                        : new PostgresFleetCoordinator(connections.dataSource(), table, budget,
                                timing.renewalLockWait(), timing.renewalTimeout(), totals, timing.heartbeat()));
    }

    /**
     * The fleet's next total from the database's signals as this instance last sampled them; held while no sample is
     * current (the sampler failing or hung), so that the fleet keeps its last total rather than guess.
     */
    private static FleetTotals followingTheDatabase(ObjectProvider<DatabaseSignalsSampling> signals) {
        DatabaseSignalsSampling sampling = signals.getIfAvailable();
        if (sampling == null) {
            throw BulkheadConfigurationException.invalidProperty(PREFIX + "total", "database",
                    "needs the database's signals: set " + BulkheadProperties.PREFIX + ".database.signals.enabled=true"
                            + ", or total=budget to split the whole connection budget");
        }
        return FleetTotalPolicy.following(sampling.sampler());
    }

    @Bean
    @ConditionalOnMissingBean
    FleetMembership dbBulkheadFleetMembership(FleetCoordinator coordinator, DataSource dataSource,
            BulkheadRegistry registry, BulkheadProperties properties, ObjectProvider<AdaptiveLimits> adaptiveLimits,
            FleetPoolPreparation preparation, ObjectProvider<FleetConnections> fleetConnections) {
        HikariDataSource pool = hikari(dataSource);
        FleetPool fleetPool = preparation.poolFor(pool);
        List<ConcurrencyCeiling> ceilings = new ArrayList<>();
        for (String name : registry.names()) {
            BulkheadTemplate template = registry.template(name);
            if (template.dataSource().map(BulkheadFleetAutoConfiguration::unwrapHikari).orElse(null) == pool) {
                // An adaptive limit resizes the gate itself and would step over the share's ceiling: refused until
                // the limit requests its B through the ceiling as the endpoint's resize does.
                if (adaptiveLimits.getIfAvailable(AdaptiveLimits::new).find(name).isPresent()) {
                    throw BulkheadConfigurationException.invalidProperty(
                            BulkheadProperties.PREFIX + ".workloads." + name + ".limit.mode", "adaptive",
                            "a workload on the pool that " + PREFIX + "coordination=postgres shares out must keep"
                                    + " a fixed B (limit.mode=fixed): the fleet share caps B, and an adaptive limit"
                                    + " would resize B past it");
                }
                if (ResolvedSettings.databaseLimit(name, properties)
                        .filter(limit -> limit.mode() == SaturationLimits.Mode.STEER).isPresent()) {
                    throw BulkheadConfigurationException.invalidProperty(
                            BulkheadProperties.PREFIX + ".workloads." + name + ".limit.database", "steer",
                            "a workload on the pool that " + PREFIX + "coordination=postgres shares out is capped"
                                    + " by the fleet share, which the database's signals steer for the whole fleet"
                                    + " with " + PREFIX + "total=database; use limit.database=recommend to see the"
                                    + " B the signals point to for this workload");
                }
                ceilings.add(new ConcurrencyCeiling(template.gate()));
            }
        }
        HikariPoolShare poolShare = fleetPool.share();
        SessionNames names = fleetPool.sessionNames();
        FleetSettings settings = settings(properties.getFleet(), memberId(preparation.tag()),
                fleetPool.configuredMaximum(), Math.max(1, ceilings.size()), names == null ? null : names.member());
        List<ShareTarget> targets = ceilings.isEmpty() ? List.of(poolShare)
                : List.of(new GateShares(ceilings), poolShare);
        FleetConnections ownConnections = fleetConnections.getIfAvailable();
        if (ownConnections != null) {
            FencingReadiness.check(fleetPool, ownConnections.dataSource()).ifPresent(reason -> logger.warn(
                    "Fleet member " + settings.memberId() + " cannot be fenced: " + reason));
        }
        return new FleetMembership(scheduler -> {
            FleetMember member = new FleetMember(coordinator, settings, targets, scheduler, new ApplicationFleetLog());
            fleetPool.openConnectionsWithin(member::connectionsAllowed);
            return member;
        }, ceilings);
    }

    /** The fleet meters, when the application has Micrometer. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static final class FleetMetrics {

        @Bean
        @ConditionalOnMissingBean
        FleetMeterBinder dbBulkheadFleetMeterBinder(FleetMembership membership) {
            return new FleetMeterBinder(membership);
        }
    }

    /**
     * The heartbeat and the lease ttl, each validated under its own property.
     *
     * @param heartbeat how often a lease is renewed
     * @param leaseTtl  how long it lasts unrenewed
     */
    private record Timing(Duration heartbeat, Duration leaseTtl) {

        /** Settings of these timings alone: for what they imply, the renewal's lock wait and timeout. */
        FleetSettings settings() {
            return new FleetSettings("check", 1, 1, 1, heartbeat, leaseTtl);
        }

        static Timing of(Fleet fleet) {
            Duration heartbeat = ResolvedSettings.requireValid(PREFIX + "heartbeat", fleet.getHeartbeat(),
                    value -> new FleetSettings("check", 1, 1, 1, value, value.multipliedBy(2)).heartbeat());
            Duration leaseTtl = ResolvedSettings.requireValid(PREFIX + "lease-ttl", fleet.getLeaseTtl(),
                    value -> new FleetSettings("check", 1, 1, 1, heartbeat, value).leaseTtl());
            return new Timing(heartbeat, leaseTtl);
        }
    }

    /** Validates each key under its own name, then builds the settings. */
    private static FleetSettings settings(Fleet fleet, String memberId, int demand, int defaultFloor,
            @Nullable String sessionName) {
        Timing timing = Timing.of(fleet);
        Duration heartbeat = timing.heartbeat();
        Duration leaseTtl = timing.leaseTtl();
        int weight = ResolvedSettings.requireValid(PREFIX + "weight", fleet.getWeight(),
                value -> new FleetSettings("check", value, 1, 1, heartbeat, leaseTtl).weight());
        Integer floor = fleet.getFloor() != null ? fleet.getFloor() : Math.min(defaultFloor, demand);
        return ResolvedSettings.requireValid(PREFIX + "floor", floor,
                value -> new FleetSettings(memberId, weight, demand, value, heartbeat, leaseTtl, sessionName));
    }

    private static int derivedBudget(DataSource connections, int otherConnections) {
        ServerConnectionSlots limits;
        try {
            limits = ServerConnectionSlots.of(connections);
        } catch (ServerConnectionSlots.Unreadable e) {
            throw new IllegalStateException("Could not read max_connections to derive "
                    + PREFIX + "connection-budget; set it explicitly", e);
        }
        long usable = limits.usableBy(otherConnections);
        if (usable < 1) {
            throw BulkheadConfigurationException.invalidProperty(PREFIX + "other-connections", otherConnections,
                    "leaves no connection budget: max_connections " + limits.maxConnections() + " − "
                            + limits.superuserReserved() + " superuser_reserved_connections − " + limits.reserved()
                            + " reserved_connections − " + otherConnections + " = " + usable
                            + "; lower it or set " + PREFIX + "connection-budget");
        }
        return (int) Math.min(Integer.MAX_VALUE, usable);
    }

    private static int requirePositive(int budget) {
        if (budget < 1) {
            throw new IllegalArgumentException("must be between 1 and " + Integer.MAX_VALUE
                    + " (connections the whole fleet may use)");
        }
        return budget;
    }

    private static HikariDataSource hikari(DataSource dataSource) {
        HikariDataSource pool = unwrapHikari(dataSource);
        if (pool == null) {
            throw BulkheadConfigurationException.invalidProperty(PREFIX + "coordination", "postgres",
                    "needs the primary data source to be a HikariCP pool, whose size it sets at run time; it is "
                            + dataSource.getClass().getName());
        }
        return pool;
    }

    private static @Nullable HikariDataSource unwrapHikari(DataSource dataSource) {
        return FleetPoolPreparation.unwrapHikari(dataSource);
    }

    /**
     * Host, process and the tag that names its sessions: unique among live members, and readable in the table and
     * the endpoint.
     */
    private static String memberId(String tag) {
        return ManagementFactory.getRuntimeMXBean().getName() + "-" + tag;
    }
}
