package dev.dbbulkhead.budget;

import dev.dbbulkhead.budget.BudgetFinding.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * The start-up check of the gates' budgets (docs/design.md, "Budgets"): for every pool, the sum of B of the
 * workloads sharing it against its size, each workload's B and deadline against the pool, and, when the fleet is
 * described, every instance's connections against the database's limit.
 *
 * @param pools    the pools and the workloads on each
 * @param fleets   the fleet arithmetic of each database server, when {@code db.bulkhead.fleet.max-instances} is
 *                 set; empty otherwise
 * @param findings what does not add up; empty when everything does
 */
public record ConnectionBudgetReport(List<PoolBudget> pools, List<FleetBudget> fleets,
                                     List<BudgetFinding> findings) {

    /**
     * Checks {@code pools} and the {@code fleets} and collects each finding once.
     *
     * @param unchecked the findings of pools whose server the fleet check could not read
     */
    public static ConnectionBudgetReport assess(List<PoolBudget> pools, List<FleetBudget> fleets,
                                                List<BudgetFinding> unchecked) {
        List<BudgetFinding> findings = new ArrayList<>();
        for (PoolBudget pool : pools) {
            assessPool(pool, findings);
        }
        fleets.stream().filter(budget -> !budget.fits()).forEach(budget -> findings.add(new BudgetFinding(
                Kind.FLEET_OVER_CONNECTION_LIMIT, "the fleet may open more connections than " + budget.server()
                        + " accepts: " + budget.arithmetic() + ". Lower the pool sizes or"
                        + " db.bulkhead.fleet.max-instances, or raise max_connections (every connection costs the"
                        + " server memory).")));
        findings.addAll(unchecked);
        return new ConnectionBudgetReport(List.copyOf(pools), List.copyOf(fleets), List.copyOf(findings));
    }

    /** This report with {@code more} findings after its own: what the application's context tells beyond the pools. */
    public ConnectionBudgetReport with(List<BudgetFinding> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<BudgetFinding> all = new ArrayList<>(findings);
        all.addAll(more);
        return new ConnectionBudgetReport(pools, fleets, List.copyOf(all));
    }

    private static void assessPool(PoolBudget budget, List<BudgetFinding> findings) {
        PoolSettings pool = budget.pool();
        int size = pool.maximumPoolSize();
        for (WorkloadBudget workload : budget.workloads()) {
            if (workload.maxConcurrent() > size) {
                findings.add(new BudgetFinding(Kind.WORKLOAD_EXCEEDS_POOL, "workload '" + workload.workload()
                        + "' may run " + workload.maxConcurrent() + " operations at once, but its pool '" + pool.name()
                        + "' has " + size + " connections: " + (workload.maxConcurrent() - size) + " would wait in the"
                        + " pool, up to its connection timeout of " + pool.connectionTimeout().toMillis() + " ms,"
                        + " instead of being refused at the gate. Lower max-concurrent to at most " + size
                        + " or enlarge the pool."));
            }
            if (workload.deadline() != null && workload.deadline().compareTo(pool.connectionTimeout()) < 0) {
                findings.add(new BudgetFinding(Kind.DEADLINE_SHORTER_THAN_POOL_WAIT, "workload '"
                        + workload.workload() + "' has a deadline of " + workload.deadline().toMillis() + " ms, but its"
                        + " pool '" + pool.name() + "' waits up to " + pool.connectionTimeout().toMillis() + " ms for a"
                        + " connection. The deadline bounds that wait in a watched HikariCP pool running normally;"
                        + " an operation out of budget can still wait that long in any other (ungated.mode=off, a"
                        + " workload naming only a transaction-manager, another pool, a suspended pool, the first"
                        + " borrow of a lazy one). To bound those too, set the pool's connection timeout (at least"
                        + " 250 ms for HikariCP) to at most the deadline."));
            }
        }
        long gated = budget.gatedConcurrency();
        if (gated > size && budget.workloads().size() > 1) {
            findings.add(new BudgetFinding(Kind.POOL_OVERCOMMITTED, "the gates on pool '" + pool.name() + "' admit "
                    + budget.gatedArithmetic() + " operations at once, but it has " + size + " connections: "
                    + (gated - size) + " admitted operations would wait in the pool instead of at their gates."
                    + " Make the sum of max-concurrent at most " + size + " or enlarge the pool."));
        } else if (gated < size) {
            findings.add(new BudgetFinding(Kind.UNGATED_CONNECTIONS, "pool '" + pool.name() + "' has " + size
                    + " connections and its gates admit " + budget.gatedArithmetic() + " at once: " + (size - gated)
                    + " connections are reserved for nothing, and work outside the gates on this pool can take"
                    + " them all. Size the pool to the sum of max-concurrent, or gate that work too."));
        }
    }

    /** The report as the start-up log and the failure report show it. */
    public String describe() {
        StringBuilder text = new StringBuilder("db-bulkhead connection budget:");
        for (PoolBudget pool : pools) {
            text.append("\n  pool '").append(pool.pool().name()).append("': ").append(pool.pool().maximumPoolSize())
                    .append(" connections; gated: ").append(pool.gatedArithmetic());
        }
        fleets.forEach(budget -> text.append("\n  fleet: ").append(budget.arithmetic()).append(" (")
                .append(budget.server()).append(")"));
        if (findings.isEmpty()) {
            text.append("\n  no findings");
        }
        for (BudgetFinding finding : findings) {
            text.append("\n  - ").append(finding);
        }
        return text.toString();
    }
}
