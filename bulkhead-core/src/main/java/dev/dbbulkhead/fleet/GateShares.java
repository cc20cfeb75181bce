package dev.dbbulkhead.fleet;

import dev.dbbulkhead.limit.ConcurrencyCeiling;
import dev.dbbulkhead.share.WeightedShares;
import java.util.List;

/**
 * Applies the instance's connections to its gates: each workload's B is capped at its part of them, in proportion
 * to its configured B and never above it, at least 1 each. With fewer connections than workloads the gates cannot
 * all serve: each keeps a B of 1 (a gate's least) and the pool bounds what the database sees.
 */
public final class GateShares implements ShareTarget {

    private final List<ConcurrencyCeiling> ceilings;
    private final List<WeightedShares.Claim> proportions;

    /**
     * @param ceilings the ceilings of the gates that use the shared connections; their requested B at this moment
     *                 sets their proportions
     */
    public GateShares(List<ConcurrencyCeiling> ceilings) {
        if (ceilings.isEmpty()) {
            throw new IllegalArgumentException("no gate to share connections among");
        }
        this.ceilings = List.copyOf(ceilings);
        // Each gate has 1 before the split, so the split divides what is above 1, weighted by the configured B.
        this.proportions = this.ceilings.stream()
                .map(ceiling -> new WeightedShares.Claim(ceiling.requested(), ceiling.requested() - 1)).toList();
    }

    /** The parts of {@code connections} each gate gets, in the order of the gates; at least 1 each. */
    public int[] split(int connections) {
        int[] parts = WeightedShares.split(Math.max(0, connections - ceilings.size()), proportions);
        for (int i = 0; i < parts.length; i++) {
            parts[i]++;
        }
        return parts;
    }

    @Override
    public boolean apply(int connections) {
        int[] parts = split(connections);
        for (int i = 0; i < parts.length; i++) {
            ceilings.get(i).limitTo(parts[i]);
        }
        return connections >= ceilings.size();
    }

    /** The least connections that give every gate a B of 1. */
    public int leastToServe() {
        return ceilings.size();
    }

    /** The gates' ceilings, in order. */
    public List<ConcurrencyCeiling> ceilings() {
        return ceilings;
    }
}
