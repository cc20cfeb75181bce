package dev.dbbulkhead.gate;

import java.time.Duration;
import java.util.List;

/**
 * One configuration of the scheduler simulation: a gate of B places and Q queue places with rules, its flows, how
 * long operations take, and — when {@code lenderPlaces > 0} — a lender of the same pool whose idle places it may borrow.
 * Everything random in a run is drawn from {@code seed}, so a configuration and its seed reproduce a run exactly.
 */
record SimulatedWorkload(long seed, int maxConcurrent, int maxQueued, long queueWaitNanos, OperationTimes times,
                         List<SimulatedFlow> flows, AdmissionRules rules, int lenderPlaces, double lenderLoad,
                         long horizonNanos) {

    GateConfig gateConfig() {
        return GateConfig.builder().maxConcurrent(maxConcurrent).maxQueued(maxQueued)
                .queueWait(Duration.ofNanos(queueWaitNanos)).admissionRules(rules).build();
    }

    /** The operations its own B places serve per second when always busy. */
    double capacityPerSecond() {
        return maxConcurrent * 1e9 / times.meanNanos();
    }

    /** The configuration in a line, to reproduce a failing case. */
    String describe() {
        StringBuilder flowsText = new StringBuilder();
        int shown = Math.min(flows.size(), 6);
        for (int i = 0; i < shown; i++) {
            SimulatedFlow flow = flows.get(i);
            flowsText.append(String.format(" %s[w%d %s %s %.3g/s x1-%d%s]", flow.key(), flow.weight(),
                    flow.criticality(), flow.arrivals(), flow.requestsPerSecond(), flow.maxOperations(),
                    flow.clients() > 0 ? " clients " + flow.clients() : ""));
        }
        if (flows.size() > shown) {
            flowsText.append(" ... ").append(flows.size()).append(" flows in all");
        }
        return String.format("seed %d: B=%d Q=%d wait=%.1fms op=%s %.1fms (op/wait %.2g) capacity %.1f/s "
                        + "inProgressFirst=%s reserves %.2f/%.2f lender %d places at %.0f%%, horizon %.1fs;%s",
                seed, maxConcurrent, maxQueued, queueWaitNanos / 1e6, times.shape(), times.meanNanos() / 1e6,
                (double) times.meanNanos() / queueWaitNanos, capacityPerSecond(), rules.inProgressFirst(),
                rules.criticalReserve(), rules.sheddableReserve(), lenderPlaces, lenderLoad * 100,
                horizonNanos / 1e9, flowsText);
    }
}
