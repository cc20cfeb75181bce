package dev.dbbulkhead.gate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Each flow's weighted max-min fair share of a workload's capacity, in operations per second, criticality by
 * criticality: critical flows share the capacity, default ones what critical ones leave, sheddable ones the rest.
 * Within a criticality no flow gets more than it asks, and what one leaves goes to the others by weight.
 */
final class MaxMinShares {

    /** Clearly under its share: asks at most this part of it (the targets about quiet flows apply). */
    static final double CLEARLY_UNDER = 0.8;
    /** Clearly over its share: asks at least this multiple of it (a quiet flow may displace its waiters). */
    static final double CLEARLY_OVER = 1.25;

    private final double[] share;
    private final double[] demand;
    private final int[] weight;
    private final Criticality[] criticality;
    /** Per criticality, the share per unit of weight of the flows that ask more; infinite when none does. */
    private final double[] level = new double[Criticality.values().length];

    MaxMinShares(List<SimulatedFlow> flows, double capacityPerSecond) {
        int count = flows.size();
        share = new double[count];
        demand = new double[count];
        weight = new int[count];
        criticality = new Criticality[count];
        for (int i = 0; i < count; i++) {
            demand[i] = flows.get(i).operationsPerSecond();
            weight[i] = flows.get(i).weight();
            criticality[i] = flows.get(i).criticality();
        }
        double left = capacityPerSecond;
        for (Criticality criticality : Criticality.values()) {
            left -= fill(flows, criticality, left);
        }
    }

    /** Water-filling within one criticality, the least demand per weight first; returns what it hands out. */
    private double fill(List<SimulatedFlow> flows, Criticality criticality, double capacity) {
        List<Integer> members = new ArrayList<>();
        double openWeight = 0;
        for (int i = 0; i < flows.size(); i++) {
            if (flows.get(i).criticality() == criticality) {
                members.add(i);
                openWeight += weight[i];
            }
        }
        members.sort(Comparator.comparingDouble(i -> demand[i] / weight[i]));
        double left = capacity;
        int next = 0;
        // Whoever asks no more than its weight's part of what is left gets what it asks, leaving more for the rest.
        while (next < members.size() && demand[members.get(next)] <= left / openWeight * weight[members.get(next)]) {
            int flow = members.get(next++);
            share[flow] = demand[flow];
            left -= demand[flow];
            openWeight -= weight[flow];
        }
        double perWeight = next < members.size() ? left / openWeight : Double.POSITIVE_INFINITY;
        level[criticality.ordinal()] = perWeight;
        for (int k = next; k < members.size(); k++) {
            share[members.get(k)] = perWeight * weight[members.get(k)];
        }
        return next < members.size() ? capacity : capacity - left;
    }

    /** Its share, operations per second. */
    double of(int flow) {
        return share[flow];
    }

    /** Whether it asks no more than its share: the oracle serves it first. */
    boolean within(int flow) {
        return demand[flow] <= share[flow] * (1 + 1e-9);
    }

    /**
     * Whether it asks at most {@link #CLEARLY_UNDER} of what its weight gives the flows of its criticality that ask
     * more than they get.
     */
    boolean clearlyUnder(int flow) {
        return demand[flow] <= CLEARLY_UNDER * level[criticality[flow].ordinal()] * weight[flow];
    }

    /** Whether it asks at least {@link #CLEARLY_OVER} times its share. */
    boolean clearlyOver(int flow) {
        return demand[flow] >= CLEARLY_OVER * share[flow];
    }

    double demand(int flow) {
        return demand[flow];
    }
}
