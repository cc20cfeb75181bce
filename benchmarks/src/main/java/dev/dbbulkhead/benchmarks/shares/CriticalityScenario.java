package dev.dbbulkhead.benchmarks.shares;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.Occupancy;
import dev.dbbulkhead.benchmarks.load.OpenLoopLoad;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.load.ScenarioSettings;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.Budget;
import dev.dbbulkhead.benchmarks.overload.OverloadScenario;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * {@value #OVERLOAD_FACTOR}× overload of one workload, a third of it critical, a third default, a third sheddable,
 * arriving steadily and interleaved: so critical work alone offers what the workload can serve. The workload's
 * capacity is measured, not assumed: B callers back to back ({@link OverloadScenario#closedLoop}), on the pool and
 * transaction of the overload scenario. Run with the rules below, then without rules under the same load.
 */
final class CriticalityScenario {

    static final int OVERLOAD_FACTOR = 3;
    static final Budget BUDGET = OverloadScenario.BUDGET;
    /**
     * Two thirds of B + Q held back for critical work: work that is not critical is admitted only while a running
     * place is free and nobody waits, so it never waits in the queue ahead of critical work.
     */
    static final double CRITICAL_RESERVE = 0.67;
    /** Sheddable work is admitted only while fewer than a fifth of B + Q are inside. */
    static final double SHEDDABLE_RESERVE = 0.8;
    static final AdmissionRules RULES = AdmissionRules.builder().criticalReserve(CRITICAL_RESERVE)
            .sheddableReserve(SHEDDABLE_RESERVE).build();

    private CriticalityScenario() {
    }

    /**
     * @param capacity commits per second of B callers back to back, measured before the runs
     * @param runs     with the rules, then without
     */
    record Result(double capacity, List<CriticalityRun> runs) {

        double perClass() {
            return OVERLOAD_FACTOR * capacity / Criticality.values().length;
        }
    }

    static Result run(BenchDatabase database, ScenarioSettings settings) throws SQLException, InterruptedException {
        double capacity = OverloadScenario.closedLoop(database, settings);
        double perClass = OVERLOAD_FACTOR * capacity / Criticality.values().length;
        List<CriticalityRun> runs = new ArrayList<>();
        for (boolean rulesOn : List.of(true, false)) {
            runs.add(runOne(database, settings, rulesOn, perClass));
        }
        return new Result(capacity, runs);
    }

    private static CriticalityRun runOne(BenchDatabase database, ScenarioSettings settings, boolean rulesOn,
                                         double perClass) throws SQLException, InterruptedException {
        String poolName = "criticality-" + (rulesOn ? "rules" : "none");
        try (HikariDataSource pool = database.pool(OverloadScenario.POOL_SIZE, settings.poolTimeout(), poolName)) {
            JdbcBulkhead bulkhead = new JdbcBulkhead(new AdmissionGate("criticality", GateConfig.builder()
                    .maxConcurrent(BUDGET.maxConcurrent())
                    .maxQueued(BUDGET.maxQueued())
                    .queueWait(BUDGET.queueWait())
                    .admissionRules(rulesOn ? RULES : AdmissionRules.none())
                    .build()), pool);
            Occupancy occupancy = new Occupancy();
            List<LoadStream> streams = new ArrayList<>();
            for (Criticality criticality : Criticality.values()) {
                OperationClass operations = OperationClass.of(criticality);
                streams.add(BenchDatabase.callers(criticality.name(), perClass, new ClassedTransactions(operations,
                        bulkhead), OverloadScenario.TRANSACTION_SLEEP, occupancy));
            }
            RunConditions.settleHeap();
            Duration drain = settings.poolTimeout().plus(BUDGET.queueWait()).plusSeconds(1);
            Map<String, CallLog> logs = OpenLoopLoad.run(streams, settings.window(), drain, occupancy);
            Map<Criticality, StreamOutcome> classes = new EnumMap<>(Criticality.class);
            for (Criticality criticality : Criticality.values()) {
                classes.put(criticality, StreamOutcome.of(criticality.name(), perClass,
                        logs.get(criticality.name())));
            }
            return new CriticalityRun(rulesOn, classes, RunConditions.loadAverage());
        }
    }
}
