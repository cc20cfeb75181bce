package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.autoconfigure.budget.BudgetFinding;
import dev.dbbulkhead.autoconfigure.budget.ConnectionBudgetCheck;
import dev.dbbulkhead.autoconfigure.budget.PoolLimits;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.spring.BulkheadRegistry;
import dev.dbbulkhead.spring.BulkheadTemplate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code dbbulkheads} actuator endpoint: every workload's limits, state and totals next to its pool, and a
 * write operation that resizes a workload at run time. Writes need {@code management.endpoint.dbbulkheads.access
 * =unrestricted}; by default the endpoint is read-only.
 */
@Endpoint(id = BulkheadsEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class BulkheadsEndpoint {

    /** The endpoint id. */
    public static final String ID = "dbbulkheads";

    private final BulkheadRegistry registry;
    private final WorkloadTotals totals;
    private final ListableBeanFactory beanFactory;
    private final ObjectProvider<ConnectionBudgetCheck> budgetCheck;

    public BulkheadsEndpoint(BulkheadRegistry registry, WorkloadTotals totals, ListableBeanFactory beanFactory,
                             ObjectProvider<ConnectionBudgetCheck> budgetCheck) {
        this.registry = registry;
        this.totals = totals;
        this.beanFactory = beanFactory;
        this.budgetCheck = budgetCheck;
    }

    /** Every workload, in the registry's order. */
    @ReadOperation
    public Bulkheads bulkheads() {
        Map<String, Workload> workloads = new LinkedHashMap<>();
        for (String name : registry.names()) {
            workloads.put(name, describe(registry.template(name)));
        }
        return new Bulkheads(workloads, budget());
    }

    /** One workload; none (HTTP 404) for an unknown name. */
    @ReadOperation
    public @Nullable Workload workload(@Selector String name) {
        return registry.find(name).map(this::describe).orElse(null);
    }

    /**
     * Changes B and/or Q of a workload without blocking: growing takes effect at once; shrinking lets running
     * operations finish while new admissions obey the new limits. A limit left out keeps its value. None for an
     * unknown name: {@link BulkheadsEndpointWebExtension} answers it with HTTP 404, as a read does.
     */
    @WriteOperation
    public @Nullable Workload resize(@Selector String name, @Nullable Integer maxConcurrent,
                                     @Nullable Integer maxQueued) {
        BulkheadTemplate template = registry.find(name).orElse(null);
        if (template == null) {
            return null;
        }
        if (maxConcurrent == null && maxQueued == null) {
            throw new InvalidEndpointRequestException("Give maxConcurrent (B), maxQueued (Q) or both",
                    "nothing to resize");
        }
        try {
            // A limit left out is kept as it is at the moment of the change, not as it was read before it.
            if (maxQueued == null) {
                template.gate().resizeConcurrent(maxConcurrent);
            } else if (maxConcurrent == null) {
                template.gate().resizeQueued(maxQueued);
            } else {
                template.resize(maxConcurrent, maxQueued);
            }
        } catch (IllegalArgumentException outOfRange) {
            throw new InvalidEndpointRequestException(outOfRange.getMessage(), outOfRange.getMessage());
        }
        return describe(template);
    }

    private Workload describe(BulkheadTemplate template) {
        AdmissionGate gate = template.gate();
        GateConfig config = gate.config();
        return new Workload(config.maxConcurrent(), config.maxQueued(), config.queueWait().toString(), gate.active(),
                gate.waiting(), totals.admitted(gate.workload()), totals.rejected(gate.workload()), pool(template));
    }

    private @Nullable Pool pool(BulkheadTemplate template) {
        DataSource dataSource = template.dataSource().orElse(null);
        if (dataSource == null) {
            return null;
        }
        String beanName = beanFactory.getBeansOfType(DataSource.class, false, false).entrySet().stream()
                .filter(bean -> bean.getValue() == dataSource).map(Map.Entry::getKey).findFirst().orElse(null);
        return PoolLimits.of(dataSource)
                .map(limits -> new Pool(beanName, limits.name(), limits.maximumPoolSize(),
                        limits.connectionTimeout().toString()))
                .orElseGet(() -> new Pool(beanName, null, null, null));
    }

    private @Nullable Budget budget() {
        ConnectionBudgetCheck check = budgetCheck.getIfAvailable();
        return check == null ? null : check.report()
                .map(report -> new Budget(report.findings(), report.fleets().stream()
                        .map(fleet -> fleet.arithmetic() + " (" + fleet.server() + ")").toList()))
                .orElse(null);
    }

    /**
     * All workloads by name, and the connection budget checked at start-up.
     *
     * @param workloads every workload
     * @param budget    the budget check's findings and fleet arithmetic as of now; null when it did not run
     */
    public record Bulkheads(Map<String, Workload> workloads, @Nullable Budget budget) implements OperationResponseBody {
    }

    /**
     * The connection budget, checked with the start-up check's rules against the limits as they are now.
     *
     * @param findings what does not add up (empty when everything does)
     * @param fleet    the fleet arithmetic of each database server, when {@code db.bulkhead.fleet.max-instances}
     *                 is set; empty otherwise
     */
    public record Budget(List<BudgetFinding> findings, List<String> fleet) {
    }

    /**
     * One workload.
     *
     * @param maxConcurrent B, execution permits
     * @param maxQueued     Q, admissions beyond B
     * @param queueWait     the longest wait for an execution permit (ISO-8601)
     * @param active        operations holding an execution permit now
     * @param waiting       operations admitted and waiting now
     * @param admitted      operations that got an execution permit since start-up
     * @param rejected      rejections since start-up by reason: full, timeout, interrupted
     * @param pool          the data source the workload's transactions use; null when its transaction manager
     *                      does not name one
     */
    public record Workload(int maxConcurrent, int maxQueued, String queueWait, int active, int waiting,
                           long admitted, Map<String, Long> rejected, @Nullable Pool pool)
            implements OperationResponseBody {
    }

    /**
     * The data source of a workload.
     *
     * @param dataSource     its bean name, when it is a bean
     * @param name           the HikariCP pool name, when it is (or wraps) a HikariCP pool
     * @param maximumSize    the HikariCP maximum pool size, P
     * @param connectionTimeout how long the pool's {@code getConnection()} waits (ISO-8601)
     */
    public record Pool(@Nullable String dataSource, @Nullable String name, @Nullable Integer maximumSize,
                       @Nullable String connectionTimeout) {
    }
}
