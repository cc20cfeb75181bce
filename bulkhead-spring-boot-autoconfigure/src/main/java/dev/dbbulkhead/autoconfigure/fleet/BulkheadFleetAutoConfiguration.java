package dev.dbbulkhead.autoconfigure.fleet;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.autoconfigure.BulkheadAutoConfiguration;
import dev.dbbulkhead.autoconfigure.BulkheadConfigurationException;
import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.Fleet;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.FleetTotal;
import dev.dbbulkhead.autoconfigure.ResolvedSettings;
import dev.dbbulkhead.budget.ServerConnectionSlots;
import dev.dbbulkhead.fleet.FleetCoordinator;
import dev.dbbulkhead.fleet.FleetMember;
import dev.dbbulkhead.fleet.FleetSettings;
import dev.dbbulkhead.fleet.FleetTotals;
import dev.dbbulkhead.fleet.PostgresFleetCoordinator;
import dev.dbbulkhead.fleet.support.ApplicationFleetLog;
import dev.dbbulkhead.fleet.support.FleetConnections;
import dev.dbbulkhead.fleet.support.FleetMembership;
import dev.dbbulkhead.fleet.support.FleetPool;
import dev.dbbulkhead.fleet.support.HikariPoolShare;
import dev.dbbulkhead.fleet.support.SessionNames;
import dev.dbbulkhead.metrics.FleetMeterBinder;
import dev.dbbulkhead.saturation.support.DatabaseSignalsSampling;
import dev.dbbulkhead.transaction.AdaptiveLimits;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
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
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class BulkheadFleetAutoConfiguration {

    private static final String PREFIX = BulkheadProperties.PREFIX + ".fleet.";

    /** Static, as a post-processor must be: it prepares the pool before anything borrows from it. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static FleetPoolPreparation dbBulkheadFleetPoolPreparation(ObjectProvider<BulkheadProperties> properties,
            ConfigurableListableBeanFactory beanFactory) {
        return new FleetPoolPreparation(properties, beanFactory);
    }

    /** Static, as a post-processor must be: it attaches the gates as soon as they and the membership exist. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static FleetGatesAttachment dbBulkheadFleetGatesAttachment(ConfigurableListableBeanFactory beanFactory) {
        return new FleetGatesAttachment(beanFactory);
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

    /** The fleet's total from the database's signals once the application has started; used with total=database. */
    @Bean
    @ConditionalOnMissingBean
    FleetTotalsFromSignals dbBulkheadFleetTotalsFromSignals(ObjectProvider<DatabaseSignalsSampling> signals) {
        return new FleetTotalsFromSignals(signals);
    }

    @Bean
    @ConditionalOnMissingBean
    FleetCoordinator dbBulkheadFleetCoordinator(FleetConnections connections, BulkheadProperties properties,
            FleetTotalsFromSignals totalsFromSignals, ListableBeanFactory beanFactory) {
        Fleet fleet = properties.getFleet();
        int budget = fleet.getConnectionBudget() != null
                ? ResolvedSettings.requireValid(PREFIX + "connection-budget", fleet.getConnectionBudget(),
                        BulkheadFleetAutoConfiguration::requirePositive)
                : derivedBudget(connections.dataSource(), fleet.getOtherConnections());
        FleetSettings timing = Timing.of(fleet).settings();
        FleetTotals totals = fleet.getTotal() == FleetTotal.DATABASE
                ? followingTheDatabase(totalsFromSignals, beanFactory) : null;
        return ResolvedSettings.requireValid(PREFIX + "table", fleet.getTable(),
                table -> totals == null
                        ? new PostgresFleetCoordinator(connections.dataSource(), table, budget,
                                timing.renewalLockWait(), timing.renewalTimeout())
                        : new PostgresFleetCoordinator(connections.dataSource(), table, budget,
                                timing.renewalLockWait(), timing.renewalTimeout(), totals, timing.heartbeat()));
    }

    /**
     * The fleet's next total from the database's signals; refused at start-up without them. Checked by bean type
     * alone: the coordinator is made before schema initialisation, the signals only with the gates after it.
     */
    private static FleetTotals followingTheDatabase(FleetTotalsFromSignals totals, ListableBeanFactory beanFactory) {
        if (beanFactory.getBeanNamesForType(DatabaseSignalsSampling.class, true, false).length == 0) {
            throw BulkheadConfigurationException.invalidProperty(PREFIX + "total", "database",
                    "needs the database's signals: set " + BulkheadProperties.PREFIX + ".database.signals.enabled=true"
                            + ", or total=budget to split the whole connection budget");
        }
        return totals;
    }

    /**
     * The membership, made and joined before schema initialisation, migrations and the JPA bootstrap borrow from the
     * pool ({@link FleetMembershipInitializerDetector}): it depends on nothing they make. The gates, which come with
     * the transaction managers, are attached as soon as they and the membership exist ({@link FleetGatesAttachment}).
     * A limit that the share would cap and that moves B by itself is refused before the join where the properties
     * show its workload on the pool ({@link CoordinatedWorkloads}).
     */
    @Bean
    @ConditionalOnMissingBean
    FleetMembership dbBulkheadFleetMembership(FleetCoordinator coordinator, DataSource dataSource,
            BulkheadProperties properties, ObjectProvider<BulkheadRegistry> registry,
            ObjectProvider<AdaptiveLimits> adaptiveLimits, FleetPoolPreparation preparation,
            FleetGatesAttachment attachment, ListableBeanFactory beanFactory) {
        HikariDataSource pool = hikari(dataSource);
        CoordinatedWorkloads.refuseBeforeJoining(pool, properties, beanFactory);
        FleetPool fleetPool = preparation.poolFor(pool);
        HikariPoolShare poolShare = fleetPool.share();
        SessionNames names = fleetPool.sessionNames();
        FleetSettings settings = settings(properties.getFleet(), memberId(preparation.tag()),
                fleetPool.configuredMaximum(), fleetPool.floor(), names == null ? null : names.member());
        return new FleetMembership((scheduler, gates) -> {
            FleetMember member = new FleetMember(coordinator, settings, List.of(gates, poolShare), scheduler,
                    new ApplicationFleetLog());
            fleetPool.openConnectionsWithin(member::connectionsAllowed);
            return member;
        }, () -> CoordinatedWorkloads.ceilings(pool, attachment.registry().orElseGet(registry::getObject),
                properties, adaptiveLimits.getIfAvailable(AdaptiveLimits::new)));
    }

    /** Whether the other members could fence this one, checked once it has joined, with the starter's coordinator. */
    @Bean
    @ConditionalOnBean(FleetConnections.class)
    FleetFencingCheck dbBulkheadFleetFencingCheck(FleetMembership membership, DataSource dataSource,
            FleetPoolPreparation preparation) {
        return new FleetFencingCheck(membership, preparation.poolFor(hikari(dataSource)));
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
            return new FleetSettings("check", 1, 1, 1, heartbeat, leaseTtl, null);
        }

        static Timing of(Fleet fleet) {
            Duration heartbeat = ResolvedSettings.requireValid(PREFIX + "heartbeat", fleet.getHeartbeat(),
                    value -> new FleetSettings("check", 1, 1, 1, value, value.multipliedBy(2), null).heartbeat());
            Duration leaseTtl = ResolvedSettings.requireValid(PREFIX + "lease-ttl", fleet.getLeaseTtl(),
                    value -> new FleetSettings("check", 1, 1, 1, heartbeat, value, null).leaseTtl());
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
                value -> new FleetSettings("check", value, 1, 1, heartbeat, leaseTtl, null).weight());
        Integer floor = fleet.getFloor() != null ? fleet.getFloor() : Math.min(defaultFloor, demand);
        Integer budget = fleet.getConnectionBudget();
        return ResolvedSettings.requireValid(PREFIX + "floor", floor, value -> {
            FleetSettings settings = new FleetSettings(memberId, weight, demand, value, heartbeat, leaseTtl,
                    sessionName);
            // Never granted, such a floor would keep the instance waiting lease-ttl at every start, then outside the
            // budget for as long as it runs.
            if (budget != null && value > budget) {
                throw new IllegalArgumentException("must be at most " + PREFIX + "connection-budget = " + budget
                        + ": no lease can grant an instance more than the whole fleet's budget"
                        + (fleet.getFloor() == null ? "; unset, the floor is one connection per workload on the pool"
                                : ""));
            }
            return settings;
        });
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
