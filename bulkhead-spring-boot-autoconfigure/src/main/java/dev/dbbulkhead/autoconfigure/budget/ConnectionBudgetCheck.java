package dev.dbbulkhead.autoconfigure.budget;

import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.BudgetMode;
import dev.dbbulkhead.autoconfigure.BulkheadProperties.Fleet;
import dev.dbbulkhead.spring.BulkheadRegistry;
import dev.dbbulkhead.spring.BulkheadTemplate;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Runs the connection budget check once every bulkhead exists, logs its report, and — with
 * {@code db.bulkhead.budget.mode=fail} — stops start-up when anything does not add up.
 */
public final class ConnectionBudgetCheck implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(ConnectionBudgetCheck.class);

    private final ObjectProvider<BulkheadRegistry> registry;
    private final BulkheadProperties properties;
    private final Function<ConnectionBudgetReport, RuntimeException> failure;
    private final ToIntFunction<BulkheadTemplate> mostConcurrent;
    private volatile ConnectionBudgetReport report;

    /**
     * A check that counts each workload's B as it is at start-up.
     *
     * @param failure makes the start-up failure of a report with findings in {@code fail} mode
     */
    public ConnectionBudgetCheck(ObjectProvider<BulkheadRegistry> registry, BulkheadProperties properties,
                                 Function<ConnectionBudgetReport, RuntimeException> failure) {
        this(registry, properties, failure, template -> template.gate().config().maxConcurrent());
    }

    /**
     * @param failure        makes the start-up failure of a report with findings in {@code fail} mode
     * @param mostConcurrent the most operations a workload's gate may ever run at once (the ceiling of an adaptive
     *                       limit): what is added up, so that the arithmetic holds whatever B becomes
     */
    public ConnectionBudgetCheck(ObjectProvider<BulkheadRegistry> registry, BulkheadProperties properties,
                                 Function<ConnectionBudgetReport, RuntimeException> failure,
                                 ToIntFunction<BulkheadTemplate> mostConcurrent) {
        this.registry = registry;
        this.properties = properties;
        this.failure = failure;
        this.mostConcurrent = mostConcurrent;
    }

    @Override
    public void afterSingletonsInstantiated() {
        BulkheadRegistry bulkheads = registry.getIfAvailable();
        if (bulkheads == null) {
            return;
        }
        Map<DataSource, PoolBudget> pools = poolsOf(bulkheads);
        ConnectionBudgetReport assessed = ConnectionBudgetReport.assess(List.copyOf(pools.values()),
                fleet(pools));
        report = assessed;
        if (assessed.findings().isEmpty()) {
            logger.info(assessed.describe());
        } else if (properties.getBudget().getMode() == BudgetMode.FAIL) {
            throw failure.apply(assessed);
        } else {
            logger.warn(assessed.describe());
        }
    }

    /** The report of the start-up check; empty before it ran or without bulkheads. */
    public Optional<ConnectionBudgetReport> report() {
        return Optional.ofNullable(report);
    }

    private Map<DataSource, PoolBudget> poolsOf(BulkheadRegistry bulkheads) {
        Map<DataSource, PoolBudget> pools = new IdentityHashMap<>();
        for (String name : bulkheads.names()) {
            BulkheadTemplate template = bulkheads.template(name);
            template.dataSource().ifPresent(dataSource -> PoolLimits.of(dataSource).ifPresent(limits -> {
                PoolBudget pool = pools.computeIfAbsent(dataSource, key -> new PoolBudget(limits, new ArrayList<>()));
                pool.workloads().add(new WorkloadBudget(name, mostConcurrent.applyAsInt(template),
                        template.limits().deadline()));
            }));
        }
        return pools;
    }

    private Optional<FleetBudget> fleet(Map<DataSource, PoolBudget> pools) {
        Fleet fleet = properties.getFleet();
        if (fleet.getMaxInstances() == null || pools.isEmpty()) {
            return Optional.empty();
        }
        int perInstance = pools.values().stream().mapToInt(pool -> pool.pool().maximumPoolSize()).sum();
        DataSource any = pools.keySet().iterator().next();
        try (Connection connection = any.getConnection(); Statement statement = connection.createStatement();
             ResultSet limits = statement.executeQuery("SELECT current_setting('max_connections')::int,"
                     + " current_setting('superuser_reserved_connections')::int,"
                     + " coalesce(current_setting('reserved_connections', true), '0')::int")) {
            limits.next();
            return Optional.of(new FleetBudget(fleet.getMaxInstances(), perInstance, fleet.getOtherConnections(),
                    limits.getInt(1), limits.getInt(2), limits.getInt(3)));
        } catch (SQLException e) {
            throw new IllegalStateException("Could not read max_connections for the fleet budget check", e);
        }
    }
}
