package dev.dbbulkhead.budget;

import dev.dbbulkhead.budget.BudgetFinding.Kind;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Runs the connection budget check once every bulkhead exists, logs its report, and — when
 * {@linkplain BudgetSettings#failOnFindings() told to} — stops start-up when anything does not add up. With the fleet described,
 * each pool's own server is asked its connection limits, once, at start-up; a server that cannot be read is a
 * finding like any other, so that {@code warn} mode warns and starts.
 */
public final class ConnectionBudgetCheck implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(ConnectionBudgetCheck.class);

    private final ObjectProvider<BulkheadRegistry> registry;
    private final BudgetSettings settings;
    private final Function<ConnectionBudgetReport, RuntimeException> failure;
    private final ToIntFunction<BulkheadTemplate> mostConcurrent;
    private final Supplier<List<BudgetFinding>> contextFindings;
    private final Function<DataSource, @Nullable String> beanNames;
    /** What each pool's server answered the fleet check at start-up; null before the check ran. */
    private volatile @Nullable Map<DataSource, ServerAnswer> servers;
    /** What the application's context added at start-up (open-session-in-view); empty before the check ran. */
    private volatile List<BudgetFinding> contextFound = List.of();

    /**
     * @param failure         makes the start-up failure of a report with findings in {@code fail} mode
     * @param mostConcurrent  the most operations a workload's gate may ever run at once (the ceiling of an adaptive
     *                        limit): what is added up, so that the arithmetic holds whatever B becomes
     * @param contextFindings what the application's context adds to the pools' arithmetic (open-session-in-view),
     *                        asked once every singleton exists
     * @param beanNames       the bean name of a DataSource, or null: what names a pool whose pool-name is not set
     */
    public ConnectionBudgetCheck(ObjectProvider<BulkheadRegistry> registry, BudgetSettings settings,
                                 Function<ConnectionBudgetReport, RuntimeException> failure,
                                 ToIntFunction<BulkheadTemplate> mostConcurrent,
                                 Supplier<List<BudgetFinding>> contextFindings,
                                 Function<DataSource, @Nullable String> beanNames) {
        this.beanNames = beanNames;
        this.registry = registry;
        this.settings = settings;
        this.failure = failure;
        this.mostConcurrent = mostConcurrent;
        this.contextFindings = contextFindings;
    }

    /**
     * The connection slots of one pool's server, or why they could not be read.
     *
     * @param slots   the server's connection slots; null when unread
     * @param failure why they could not be read; null when read
     */
    private record ServerAnswer(@Nullable ServerConnectionSlots slots, @Nullable String failure) {
    }

    @Override
    public void afterSingletonsInstantiated() {
        BulkheadRegistry bulkheads = registry.getIfAvailable();
        if (bulkheads == null) {
            return;
        }
        Map<DataSource, PoolBudget> pools = poolsOf(bulkheads);
        contextFound = List.copyOf(contextFindings.get());
        servers = askServers(pools.keySet());
        ConnectionBudgetReport assessed = assess(pools, servers).with(contextFound);
        if (assessed.findings().isEmpty()) {
            logger.info(assessed.describe());
        } else if (settings.failOnFindings()) {
            throw failure.apply(assessed);
        } else {
            logger.warn(assessed.describe());
        }
    }

    /**
     * The start-up check's rules applied to the limits as they are now, a resize included; the servers' limits are
     * those read at start-up. Empty before the check ran, or without bulkheads.
     */
    public Optional<ConnectionBudgetReport> report() {
        Map<DataSource, ServerAnswer> answered = servers;
        BulkheadRegistry bulkheads = registry.getIfAvailable();
        return answered == null || bulkheads == null ? Optional.empty()
                : Optional.of(assess(poolsOf(bulkheads), answered).with(contextFound));
    }

    private Map<DataSource, PoolBudget> poolsOf(BulkheadRegistry bulkheads) {
        Map<DataSource, PoolBudget> pools = new IdentityHashMap<>();
        for (String name : bulkheads.names()) {
            BulkheadTemplate template = bulkheads.template(name);
            template.dataSource().ifPresent(dataSource ->
                    PoolSettings.of(dataSource, beanNames.apply(dataSource)).ifPresent(limits -> {
                        PoolBudget pool = pools.computeIfAbsent(dataSource,
                                key -> new PoolBudget(limits, new ArrayList<>()));
                        pool.workloads().add(new WorkloadBudget(name, mostConcurrent.applyAsInt(template),
                                template.timeouts().deadline()));
                    }));
        }
        return pools;
    }

    /** Asks each pool's own server for its limits, once, when the fleet is described; none otherwise. */
    private Map<DataSource, ServerAnswer> askServers(Set<DataSource> pools) {
        Map<DataSource, ServerAnswer> answers = new IdentityHashMap<>();
        if (settings.maxInstances() != null) {
            for (DataSource pool : pools) {
                try {
                    answers.put(pool, new ServerAnswer(ServerConnectionSlots.of(pool), null));
                } catch (ServerConnectionSlots.Unreadable unreadable) {
                    answers.put(pool, new ServerAnswer(null, unreadable.getMessage()));
                }
            }
        }
        return answers;
    }

    /** The report over {@code pools}, with one fleet budget per server that the pools reach. */
    private ConnectionBudgetReport assess(Map<DataSource, PoolBudget> pools, Map<DataSource, ServerAnswer> answers) {
        Map<String, List<PoolBudget>> poolsByServer = new LinkedHashMap<>();
        Map<String, ServerConnectionSlots> slotsByServer = new LinkedHashMap<>();
        List<BudgetFinding> unchecked = new ArrayList<>();
        pools.forEach((dataSource, pool) -> {
            ServerAnswer answer = answers.get(dataSource);
            if (answer == null) {
                return;
            }
            ServerConnectionSlots slots = answer.slots();
            if (slots == null) {
                unchecked.add(new BudgetFinding(Kind.FLEET_UNCHECKED, "the fleet budget of pool '"
                        + pool.pool().name() + "' could not be checked: " + answer.failure() + ". Make its database"
                        + " reachable at start-up, or leave db.bulkhead.fleet.max-instances unset where the database"
                        + " is not PostgreSQL."));
                return;
            }
            poolsByServer.computeIfAbsent(slots.server(), server -> new ArrayList<>()).add(pool);
            slotsByServer.putIfAbsent(slots.server(), slots);
        });
        // Servers are asked only when the fleet is described, so without max-instances there is no fleet budget.
        Integer maxInstances = settings.maxInstances();
        List<FleetBudget> fleets = maxInstances == null ? List.of() : poolsByServer.entrySet().stream().map(server -> {
            ServerConnectionSlots slots = Objects.requireNonNull(slotsByServer.get(server.getKey()), server.getKey());
            List<PoolBudget> onServer = server.getValue();
            return new FleetBudget(onServer.stream().map(pool -> pool.pool().name()).toList(),
                    maxInstances, onServer.stream().mapToInt(pool -> pool.pool().maximumPoolSize()).sum(),
                    settings.otherConnections(), slots.maxConnections(), slots.superuserReserved(),
                    slots.reserved());
        }).toList();
        return ConnectionBudgetReport.assess(List.copyOf(pools.values()), fleets, unchecked);
    }
}
