package dev.dbbulkhead.benchmarks.scheduler;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.benchmarks.load.Arrivals;
import dev.dbbulkhead.benchmarks.load.CallLog;
import dev.dbbulkhead.benchmarks.load.LoadStream;
import dev.dbbulkhead.benchmarks.load.Occupancy;
import dev.dbbulkhead.benchmarks.load.OpenLoopLoad;
import dev.dbbulkhead.benchmarks.load.Outcome;
import dev.dbbulkhead.benchmarks.load.RunConditions;
import dev.dbbulkhead.benchmarks.load.StartingAt;
import dev.dbbulkhead.benchmarks.overload.BenchDatabase;
import dev.dbbulkhead.benchmarks.overload.Budget;
import dev.dbbulkhead.benchmarks.overload.GuardedTransactions;
import dev.dbbulkhead.benchmarks.overload.OverloadScenario;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.jdbc.JdbcBulkhead;
import dev.dbbulkhead.jdbc.SqlWork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * One case of the scheduler run: one gate (B, Q, queue wait, rules) on a fresh pool of real PostgreSQL, offered some
 * streams of calls open loop for a window, watched by a {@link GateWatch}. Every call runs the overload scenario's
 * transaction (pg_sleep of {@link #HOLD}, a one-row UPDATE, commit).
 */
final class GateCase {

    static final Duration HOLD = OverloadScenario.TRANSACTION_SLEEP;
    static final String WORKLOAD = "scheduler";

    private GateCase() {
    }

    /**
     * A stream of calls of one class: {@code key} null for calls that bind no key.
     */
    record Flow(String name, Arrivals arrivals, Criticality criticality, String key) {

        static Flow keyed(String key, double perSecond) {
            return new Flow(key, Arrivals.steady(perSecond), Criticality.DEFAULT, key);
        }

        OperationClass operations() {
            return key == null ? OperationClass.of(criticality) : OperationClass.of(criticality, key);
        }
    }

    /** What the streams of a case are made of, given the gate's transactions and where callers report executing. */
    @FunctionalInterface
    interface Streams {
        List<LoadStream> of(Gated gated, Occupancy occupancy);
    }

    /** The case's gate as its streams use it. */
    record Gated(JdbcBulkhead bulkhead, GateWatch watch) {

        /** Transactions of {@code operations}, bound for the call, refusals watched. */
        GuardedTransactions of(OperationClass operations) {
            return watch.watching(new GuardedTransactions() {
                @Override
                public <T> T transaction(SqlWork<T> work) throws Exception {
                    try (OperationClass.Scope bound = operations.bind()) {
                        return bulkhead.transaction(work);
                    }
                }
            });
        }
    }

    /** How one stream's calls ended. */
    record StreamResult(String name, double perSecond, int offered, Map<Outcome, Integer> counts,
                        Map<String, Integer> refusals, Throwable firstFailure) {

        int committed() {
            return counts.getOrDefault(Outcome.COMMITTED, 0);
        }

        double success() {
            return offered == 0 ? Double.NaN : (double) committed() / offered;
        }
    }

    /**
     * @param busy                   the share of B taken, averaged over the window's samples
     * @param allTaken               the share of samples with all B taken
     * @param overFairShare          {@code OVER_FAIR_SHARE} refusals
     * @param overFairShareWhileFree of those, the ones met while fewer than B ran
     * @param meanHold               how long a place was held on average, admission to release, as the gate timed it
     */
    record Result(String name, Budget budget, int poolSize, AdmissionRules rules, Duration window,
                  List<StreamResult> streams, double busy, double allTaken, int overFairShare,
                  int overFairShareWhileFree, double loadAverage, Duration meanHold) {

        StreamResult stream(String name) {
            return streams.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
        }

        int committed() {
            return streams.stream().mapToInt(StreamResult::committed).sum();
        }

        double goodput() {
            return committed() / (window.toNanos() / 1e9);
        }

        Map<String, Integer> refusals() {
            Map<String, Integer> all = new java.util.TreeMap<>();
            streams.forEach(s -> s.refusals().forEach((reason, count) -> all.merge(reason, count, Integer::sum)));
            return all;
        }
    }

    /** Streams of the transaction of known cost, one per flow, holding its connection {@link #HOLD}. */
    static Streams flows(List<Flow> flows) {
        return flows(flows, HOLD);
    }

    /**
     * Streams of the transaction of known cost, one per flow, holding its connection {@code hold}. Flow {@code i} of
     * {@code n} begins {@code i / n} of its own period late: steady streams of one rate would otherwise arrive at the
     * same instants in the same order, every time, and the last of them would meet a full gate far more often than
     * the first (a harness artefact, not a gate's).
     */
    static Streams flows(List<Flow> flows, Duration hold) {
        return flows(flows, () -> hold);
    }

    /**
     * As {@link #flows(List, Duration)}, each transaction holding its connection from half to one and a half times
     * {@code meanHold}, drawn afresh each time: operations of one fixed length phase-lock the places (each freed
     * place starts another operation of that length at once), so that places free in bursts one hold apart, and a
     * waiter first in line may wait a whole hold whatever the order; requests vary.
     */
    static Streams flowsOfVaryingHold(List<Flow> flows, Duration meanHold) {
        return flows(flows, () -> Duration.ofNanos((long) (meanHold.toNanos()
                * (0.5 + ThreadLocalRandom.current().nextDouble()))));
    }

    private static Streams flows(List<Flow> flows, Supplier<Duration> hold) {
        return (gated, occupancy) -> {
            List<LoadStream> streams = new ArrayList<>();
            for (int i = 0; i < flows.size(); i++) {
                Flow flow = flows.get(i);
                Duration stagger = Duration.ofNanos((long) (1e9 / flow.arrivals().perSecond() * i / flows.size()));
                GuardedTransactions transactions = gated.of(flow.operations());
                streams.add(new LoadStream(flow.name(), new StartingAt(stagger, flow.arrivals()),
                        () -> transactions.transaction(connection -> occupancy.executing(
                                () -> BenchDatabase.sleepAndUpdate(connection, hold.get())))));
            }
            return streams;
        };
    }

    static Result run(BenchDatabase database, String name, int poolSize, Budget budget, AdmissionRules rules,
                      Streams streams, Duration window, Duration poolTimeout) throws Exception {
        try (HikariDataSource pool = database.pool(poolSize, poolTimeout, "scheduler-" + name)) {
            HoldMeter holds = new HoldMeter();
            AdmissionGate gate = new AdmissionGate(WORKLOAD, GateConfig.builder()
                    .maxConcurrent(budget.maxConcurrent())
                    .maxQueued(budget.maxQueued())
                    .queueWait(budget.queueWait())
                    .admissionRules(rules)
                    .build(), holds);
            GateWatch watch = new GateWatch(gate, budget.maxConcurrent());
            Occupancy occupancy = new Occupancy();
            List<LoadStream> loadStreams = streams.of(new Gated(new JdbcBulkhead(gate, pool), watch), occupancy);
            RunConditions.settleHeap();
            Duration drain = poolTimeout.plus(budget.queueWait()).plusSeconds(1);
            Map<String, CallLog> logs;
            try (watch) {
                watch.start(window);
                logs = OpenLoopLoad.run(loadStreams, window, drain, occupancy);
            }
            List<StreamResult> results = new ArrayList<>();
            for (LoadStream stream : loadStreams) {
                CallLog log = logs.get(stream.name());
                results.add(new StreamResult(stream.name(), stream.arrivals().perSecond(), log.offered(), log.counts(),
                        log.refusalsByReason(), log.firstFailure()));
            }
            gate.shutDown();
            return new Result(name, budget, poolSize, rules, window, results, watch.busy(), watch.allTaken(),
                    watch.overFairShare(), watch.overFairShareWhileFree(), RunConditions.loadAverage(),
                    holds.meanHold());
        }
    }
}
