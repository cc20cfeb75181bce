package dev.dbbulkhead.benchmarks.shares;

import com.netflix.concurrency.limits.Limiter;
import dev.dbbulkhead.benchmarks.alternatives.PartitionedLimiters;
import dev.dbbulkhead.benchmarks.alternatives.Resilience4jBulkheads;
import dev.dbbulkhead.benchmarks.overload.Budget;
import dev.dbbulkhead.benchmarks.overload.GuardedTransactions;
import dev.dbbulkhead.benchmarks.overload.LimiterTransactions;
import dev.dbbulkhead.benchmarks.overload.PlainTransaction;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.jdbc.SqlWork;
import io.github.resilience4j.bulkhead.Bulkhead;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The guards of the tenants scenario, each given the same budget for the whole workload. Resilience4j has no
 * tenants: one shared bulkhead cannot tell them apart (it is db-bulkhead without rules, as far as tenants go), so it
 * is run as a bulkhead per tenant, each its part of B: a static partition, nothing lent to a busy tenant.
 */
enum TenantGuard {

    /** db-bulkhead with fair shares between the tenants' keys. */
    FAIR_SHARES("db-bulkhead, fair shares") {
        @Override
        TenantTransactions open(DataSource pool, Budget budget, List<String> tenants) {
            return keyed(pool, budget, AdmissionRules.builder().fairShares(true).build());
        }
    },

    /** The same gate without rules: the tenants' keys are bound and ignored. */
    NO_RULES("db-bulkhead, no rules") {
        @Override
        TenantTransactions open(DataSource pool, Budget budget, List<String> tenants) {
            return keyed(pool, budget, AdmissionRules.none());
        }
    },

    /** A Resilience4j semaphore bulkhead per tenant, B / tenants calls each, waiting at most the queue wait. */
    RESILIENCE4J_PER_TENANT("Resilience4j, a bulkhead per tenant") {
        @Override
        TenantTransactions open(DataSource pool, Budget budget, List<String> tenants) {
            int each = Math.max(1, budget.maxConcurrent() / tenants.size());
            Map<String, Bulkhead> bulkheads = tenants.stream().collect(Collectors.toMap(Function.identity(),
                    tenant -> Resilience4jBulkheads.semaphoreBulkhead(tenant, each, budget.queueWait(), false)));
            return tenant -> new GuardedTransactions() {
                @Override
                public <T> T transaction(SqlWork<T> work) throws Exception {
                    return bulkheads.get(tenant).executeCallable(() -> PlainTransaction.run(pool, work));
                }
            };
        }
    },

    /** concurrency-limits' partitioned limiter: a limit of B, a partition per tenant of an equal percentage. */
    PARTITIONED_LIMITER("concurrency-limits, partitioned") {
        @Override
        TenantTransactions open(DataSource pool, Budget budget, List<String> tenants) {
            Limiter<String> limiter = PartitionedLimiters.equalPartitions(budget.maxConcurrent(), tenants);
            return tenant -> LimiterTransactions.behind(limiter, tenant, pool, "partition limit reached");
        }
    };

    private final String label;

    TenantGuard(String label) {
        this.label = label;
    }

    /** The name in tables. */
    String label() {
        return label;
    }

    /** The guard for {@code tenants} on {@code pool}, within {@code budget} for the whole workload. */
    abstract TenantTransactions open(DataSource pool, Budget budget, List<String> tenants);

    private static TenantTransactions keyed(DataSource pool, Budget budget, AdmissionRules rules) {
        JdbcBulkhead bulkhead = new JdbcBulkhead(new AdmissionGate(TenantsScenario.WORKLOAD, GateConfig.builder()
                .maxConcurrent(budget.maxConcurrent())
                .maxQueued(budget.maxQueued())
                .queueWait(budget.queueWait())
                .admissionRules(rules)
                .build()), pool);
        return tenant -> new ClassedTransactions(OperationClass.of(Criticality.DEFAULT, tenant), bulkhead);
    }
}
