package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.gate.GateLending;
import dev.dbbulkhead.gate.LendingPool;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One {@link LendingPool} per DataSource whose workloads lend to each other: the workloads of one pool are those whose
 * transactions use the same DataSource bean. A workload takes part only when it borrows, or lends while a workload of
 * its DataSource borrows — the defaults (nobody borrows) leave every gate out of every pool, fast path included.
 * Used while the templates are built, at start-up.
 */
final class LendingPools {

    private static final Log logger = LogFactory.getLog(LendingPools.class);

    private final ResolvedWorkloads workloads;
    private final Function<String, @Nullable DataSource> dataSourceOfWorkload;
    /** By identity: two DataSource beans that compare equal are still two pools. */
    private final Map<DataSource, LendingPool> pools = new IdentityHashMap<>();
    /** Guards the maps: templates may be built from several threads (lazy beans). Never held while waiting. */
    private final ReentrantLock lock = new ReentrantLock();
    /**
     * The DataSources some configured workload borrows from, resolved once, at the first workload that lends;
     * null until then.
     */
    private @Nullable Set<DataSource> borrowedFrom;

    LendingPools(ResolvedWorkloads workloads, Function<String, @Nullable DataSource> dataSourceOfWorkload) {
        this.workloads = workloads;
        this.dataSourceOfWorkload = dataSourceOfWorkload;
    }

    /** How workload {@code workload}, whose transactions use {@code dataSource}, takes part in its pool's lending. */
    GateLending lendingOf(String workload, WorkloadSettings settings, @Nullable DataSource dataSource) {
        lock.lock();
        try {
            return lendingOf(workload, settings.lending(), settings.dataSource().value(), dataSource);
        } finally {
            lock.unlock();
        }
    }

    private GateLending lendingOf(String workload, WorkloadSettings.Lending asked, @Nullable String named,
                                  @Nullable DataSource dataSource) {
        if (asked.borrow() == 0 && !(asked.lends() && dataSource != null && someoneBorrowsOn(dataSource))) {
            return GateLending.none();
        }
        if (dataSource == null) {
            logger.warn("db-bulkhead workload '" + workload + "': " + WorkloadKeys.BORROW.name() + " = "
                    + asked.borrow() + " ignored: the DataSource of its transactions is unknown, so there is no pool to"
                    + " borrow from. Name it with " + WorkloadKeys.DATA_SOURCE.under(workload) + ".");
            return GateLending.none();
        }
        String name = named == null ? "primary" : named;
        LendingPool pool = pools.computeIfAbsent(dataSource, ignored -> new LendingPool(name));
        return GateLending.of(pool, asked.borrow(), asked.lends());
    }

    /** Whether a workload of {@code dataSource} borrows: a configured one, or every unconfigured one by default. */
    private boolean someoneBorrowsOn(DataSource dataSource) {
        if (workloads.defaults().lending().borrow() > 0) {
            return true;
        }
        Set<DataSource> known = borrowedFrom;
        if (known == null) {
            // Once for all workloads: each lender asking anew would look up every workload's data source again.
            known = Collections.newSetFromMap(new IdentityHashMap<>());
            for (String other : workloads.names()) {
                DataSource used = workloads.settings(other).lending().borrow() > 0
                        ? dataSourceOfWorkload.apply(other) : null;
                if (used != null) {
                    known.add(used);
                }
            }
            borrowedFrom = known;
        }
        return known.contains(dataSource);
    }
}
