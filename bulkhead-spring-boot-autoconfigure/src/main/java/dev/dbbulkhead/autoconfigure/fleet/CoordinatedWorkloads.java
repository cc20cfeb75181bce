package dev.dbbulkhead.autoconfigure.fleet;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.autoconfigure.BulkheadConfigurationException;
import dev.dbbulkhead.autoconfigure.BulkheadProperties;
import dev.dbbulkhead.autoconfigure.ResolvedSettings;
import dev.dbbulkhead.autoconfigure.ResolvedSettings.TransactionBeans;
import dev.dbbulkhead.limit.ConcurrencyCeiling;
import dev.dbbulkhead.transaction.AdaptiveLimits;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * The workloads on the pool the fleet shares out, whose B the share caps, and the refusal of the limits that would
 * move B past it ({@code limit.mode=adaptive}, {@code limit.database=steer}). Checked twice: before the member joins,
 * for the workloads the properties place on the pool beyond doubt, so that a refused configuration fails start-up
 * without first waiting for room in a full fleet; and once the gates exist, for every workload they show on it.
 */
final class CoordinatedWorkloads {

    private static final String COORDINATION = BulkheadProperties.PREFIX + ".fleet.coordination=postgres";

    private CoordinatedWorkloads() {
    }

    /**
     * Refuses a limit that moves B by itself on a workload that the properties place on {@code pool} beyond doubt:
     * one that names that data source alone, or that names none while the application has no other data source.
     * A workload that names a transaction manager, or whose pool only its gate can tell, is left to {@link #ceilings}.
     *
     * @throws BulkheadConfigurationException naming the key that sets the limit and the way out
     */
    static void refuseBeforeJoining(HikariDataSource pool, BulkheadProperties properties,
                                    ListableBeanFactory beanFactory) {
        if (!properties.isEnabled()) {
            return;
        }
        boolean onlyDataSource = beanFactory.getBeanNamesForType(DataSource.class, true, false).length == 1;
        for (String workload : properties.getWorkloads().keySet()) {
            // The limit first: placing a workload that names a data source may have to make that bean.
            Optional<BulkheadConfigurationException> refused = refusalOf(workload, properties);
            if (refused.isPresent() && onThePool(workload, pool, properties, beanFactory, onlyDataSource)) {
                throw refused.get();
            }
        }
    }

    private static boolean onThePool(String workload, HikariDataSource pool, BulkheadProperties properties,
                                     ListableBeanFactory beanFactory, boolean onlyDataSource) {
        TransactionBeans named = ResolvedSettings.transactionBeans(workload, properties);
        if (named.transactionManager() != null) {
            return false;
        }
        String dataSource = named.dataSource();
        if (dataSource == null) {
            return onlyDataSource;
        }
        // A name that is no data source is the registry's to report, under its own key.
        return beanFactory.containsBean(dataSource) && beanFactory.isTypeMatch(dataSource, DataSource.class)
                && FleetPoolPreparation.unwrapHikari(beanFactory.getBean(dataSource, DataSource.class)) == pool;
    }

    /**
     * The ceilings of the workloads whose gates run on {@code pool}.
     *
     * @throws BulkheadConfigurationException when one of them has a limit that moves B by itself
     */
    static List<ConcurrencyCeiling> ceilings(HikariDataSource pool, BulkheadRegistry registry,
                                             BulkheadProperties properties, AdaptiveLimits adaptiveLimits) {
        List<ConcurrencyCeiling> ceilings = new ArrayList<>();
        for (String workload : registry.names()) {
            BulkheadTemplate template = registry.template(workload);
            if (template.dataSource().map(FleetPoolPreparation::unwrapHikari).orElse(null) != pool) {
                continue;
            }
            Optional<BulkheadConfigurationException> refused = refusalOf(workload, properties);
            if (refused.isPresent()) {
                throw refused.get();
            }
            if (adaptiveLimits.find(workload).isPresent()) {
                // An adaptive limit made by the application's own code rather than by the properties.
                throw refusal(BulkheadProperties.PREFIX + ".workloads." + workload + ".limit.mode", "adaptive");
            }
            ceilings.add(ConcurrencyCeiling.of(template.gate()));
        }
        return ceilings;
    }

    /** The refusal of the workload's limit that moves B by itself, as the properties set it; empty for none. */
    private static Optional<BulkheadConfigurationException> refusalOf(String workload, BulkheadProperties properties) {
        return ResolvedSettings.selfResizingLimit(workload, properties)
                .map(limit -> refusal(limit.property(), limit.value()));
    }

    private static BulkheadConfigurationException refusal(String property, String value) {
        if (value.equals("adaptive")) {
            // The share alone moves B on the coordinated pool, so a limit that learns B by itself is refused there.
            return BulkheadConfigurationException.invalidProperty(property, value, "a workload on the pool that "
                    + COORDINATION + " shares out must keep a fixed B (limit.mode=fixed): the fleet share caps B,"
                    + " and an adaptive limit would resize B past it");
        }
        return BulkheadConfigurationException.invalidProperty(property, value, "a workload on the pool that "
                + COORDINATION + " shares out is capped by the fleet share, which the database's signals steer for"
                + " the whole fleet with " + BulkheadProperties.PREFIX + ".fleet.total=database; use"
                + " limit.database=recommend to see the B the signals point to for this workload");
    }
}
