package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.jdbc.ungated.UngatedWork;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Refuses at start-up the workloads whose statement-timeout, lock-timeout or deadline would be sent to a database
 * that is not PostgreSQL (H2 in a dev profile, MySQL): every one of their transactions would fail on
 * {@code SET LOCAL}. Asks each data source once, and only when one of its workloads sets such a limit; a database
 * that cannot be reached is logged and left to fail where it is used, as any other start-up without a database.
 */
final class PostgresOnlyTimeoutsCheck implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(PostgresOnlyTimeoutsCheck.class);

    /** What {@link java.sql.DatabaseMetaData#getDatabaseProductName()} answers for PostgreSQL. */
    private static final String POSTGRESQL = "PostgreSQL";

    private final ObjectProvider<BulkheadRegistry> registry;
    private final ResolvedWorkloads workloads;

    PostgresOnlyTimeoutsCheck(ObjectProvider<BulkheadRegistry> registry, ResolvedWorkloads workloads) {
        this.registry = registry;
        this.workloads = workloads;
    }

    /**
     * One workload whose limits the database cannot apply.
     *
     * @param workload   the workload
     * @param properties the properties that set the limits
     * @param product    the database product its data source reaches
     */
    record Refusal(String workload, List<String> properties, String product) {
    }

    @Override
    public void afterSingletonsInstantiated() {
        BulkheadRegistry bulkheads = registry.getIfAvailable();
        if (bulkheads == null) {
            return;
        }
        Map<DataSource, Optional<String>> products = new IdentityHashMap<>();
        List<Refusal> refusals = new ArrayList<>();
        for (String workload : bulkheads.names()) {
            List<String> limits = workloads.settings(workload).postgresOnlyProperties();
            BulkheadTemplate template = bulkheads.template(workload);
            if (limits.isEmpty() || template.dataSource().isEmpty()) {
                continue;
            }
            products.computeIfAbsent(template.dataSource().get(), PostgresOnlyTimeoutsCheck::productOf)
                    .filter(product -> !POSTGRESQL.equals(product))
                    .ifPresent(product -> refusals.add(new Refusal(workload, limits, product)));
        }
        if (!refusals.isEmpty()) {
            throw BulkheadConfigurationException.postgresOnlyLimits(refusals);
        }
    }

    private static Optional<String> productOf(DataSource dataSource) {
        // Outside the gates by design, whenever it runs: marked, so that no borrow need read its stack to tell.
        try (Connection connection = UngatedWork.allow(PostgresOnlyTimeoutsCheck.class.getName(),
                dataSource::getConnection)) {
            return Optional.of(connection.getMetaData().getDatabaseProductName());
        } catch (SQLException | RuntimeException unreachable) {
            // HikariCP reports a pool that cannot open its first connection with a RuntimeException.
            logger.warn("Could not ask the database whether it applies statement-timeout, lock-timeout and deadline"
                    + " (PostgreSQL's SET LOCAL): " + unreachable.getMessage());
            return Optional.empty();
        }
    }
}
