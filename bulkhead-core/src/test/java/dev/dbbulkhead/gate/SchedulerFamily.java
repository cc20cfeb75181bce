package dev.dbbulkhead.gate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The family of configurations the scheduler's targets are checked over, one member per seed: B in {2, 8, 32, 128};
 * operation time over queue wait from 0.1 to 10; 2, 10, 100 or 10,000 flows, one to four of them heavy (one noisy
 * flow at 3 to 100 times the others, or more so that the whole asks 1.2 to 3 times capacity); weights or none;
 * criticality mixes with reserves; requests of one operation or of one to ten with in progress first; fixed, uniform
 * or exponential operation times; Poisson arrivals, bursts and closed loops; lending or none.
 */
final class SchedulerFamily {

    static final int[] PLACES = {2, 8, 32, 128};
    static final double[] OPERATION_OVER_WAIT = {0.1, 0.3, 1.0, 3.0, 10.0};
    static final int[] FLOWS = {2, 10, 100, 10_000};
    static final int[] NOISY_FACTOR = {3, 10, 30, 100};
    private static final long OPERATION_NANOS = 10_000_000L;

    /** A member and the value it took in each dimension, to report the worst case per value. */
    record Member(SimulatedWorkload workload, Map<String, String> dimensions) {
    }

    private SchedulerFamily() {
    }

    static Member member(long seed) {
        // Scrambled: the first draws of generators seeded 1, 2, 3... are alike, and would all pick the same B.
        Random random = new Random(seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L);
        Map<String, String> dimensions = new LinkedHashMap<>();
        int places = pick(random, PLACES, dimensions, "B");
        double ratio = OPERATION_OVER_WAIT[random.nextInt(OPERATION_OVER_WAIT.length)];
        dimensions.put("operation ÷ queue wait", String.valueOf(ratio));
        int flowCount = pick(random, FLOWS, dimensions, "flows");
        int noisyFactor = pick(random, NOISY_FACTOR, dimensions, "noisy ×");
        int heavy = random.nextDouble() < 0.7 ? 1 : Math.min(flowCount - 1, 2 + random.nextInt(3));
        dimensions.put("heavy flows", heavy == 1 ? "1" : "2-4");
        boolean weighted = random.nextDouble() < 0.3;
        dimensions.put("weights", weighted ? "1-4" : "equal");
        String mix = new String[] {"all default", "quiet critical", "noisy sheddable", "random"}[random.nextInt(4)];
        dimensions.put("criticality", mix);
        int maxOperations = random.nextDouble() < 0.6 ? 1 : 10;
        boolean inProgressFirst = maxOperations > 1 && random.nextDouble() < 0.7;
        dimensions.put("operations per request", maxOperations == 1 ? "1" : inProgressFirst ? "1-10, in progress first"
                : "1-10");
        OperationTimes.Shape shape = OperationTimes.Shape.values()[random.nextInt(3)];
        dimensions.put("operation times", shape.name().toLowerCase(Locale.ROOT));
        SimulatedFlow.ArrivalProcess quietArrivals = random.nextDouble() < 0.2 ? SimulatedFlow.ArrivalProcess.BURSTS
                : SimulatedFlow.ArrivalProcess.POISSON;
        SimulatedFlow.ArrivalProcess noisyArrivals = SimulatedFlow.ArrivalProcess.values()[random.nextInt(3)];
        dimensions.put("arrivals", "quiet " + quietArrivals + ", noisy " + noisyArrivals);
        boolean lending = random.nextDouble() < 0.2;
        dimensions.put("lending", lending ? "borrows" : "none");
        int queued = Math.max(1, places * new int[] {1, 2, 4}[random.nextInt(3)] / 2);

        double capacity = places * 1e9 / OPERATION_NANOS;
        double meanOperations = (1 + maxOperations) / 2.0;
        double quietLoad = 0.1 + 0.7 * random.nextDouble();
        double load = 1.2 + 1.8 * random.nextDouble();
        double quietRate = quietLoad * capacity / (flowCount - heavy) / meanOperations;
        double heavyRate = Math.max(noisyFactor * quietRate, (load - quietLoad) * capacity / heavy / meanOperations);
        List<SimulatedFlow> flows = new ArrayList<>(flowCount);
        Map<String, Integer> weights = new LinkedHashMap<>();
        for (int i = 0; i < flowCount; i++) {
            boolean noisy = i < heavy;
            String key = (noisy ? "noisy-" : "quiet-") + i;
            int weight = weighted ? (noisy ? new int[] {1, 3}[random.nextInt(2)] : 1 << random.nextInt(3)) : 1;
            if (weight != 1) {
                weights.put(key, weight);
            }
            Criticality criticality = criticalityOf(mix, noisy, random);
            double rate = noisy ? heavyRate * (heavy == 1 ? 1.0 : 0.5 + random.nextDouble()) : quietRate;
            SimulatedFlow.ArrivalProcess arrivals = noisy ? noisyArrivals : quietArrivals;
            int clients = arrivals == SimulatedFlow.ArrivalProcess.CLOSED_LOOP ? places + queued + random.nextInt(
                    places + 1) : 0;
            flows.add(new SimulatedFlow(key, weight, criticality, arrivals, rate, maxOperations, clients));
        }
        double criticalReserve = mix.equals("all default") ? 0.0 : new double[] {0.0, 0.1, 0.25}[random.nextInt(3)];
        AdmissionRules rules = AdmissionRules.builder().fairShares(true).keyWeights(weights)
                .inProgressFirst(inProgressFirst).criticalReserve(criticalReserve)
                .sheddableReserve(criticalReserve == 0.0 ? 0.0 : Math.min(0.5, criticalReserve * 2)).build();
        long wait = (long) (OPERATION_NANOS / ratio);
        // Long enough for 20 waits and 20 operations, and 1,200 operations in all.
        long horizon = Math.max(20 * Math.max(OPERATION_NANOS, wait), (long) (1_200 / capacity * 1e9));
        int lenderPlaces = lending ? Math.max(1, places / 2) : 0;
        SimulatedWorkload workload = new SimulatedWorkload(seed, places, queued, wait,
                new OperationTimes(shape, OPERATION_NANOS), flows, rules, lenderPlaces,
                0.1 + 0.9 * random.nextDouble(), horizon);
        return new Member(workload, dimensions);
    }

    private static Criticality criticalityOf(String mix, boolean noisy, Random random) {
        return switch (mix) {
            case "quiet critical" -> noisy ? Criticality.DEFAULT : Criticality.CRITICAL;
            case "noisy sheddable" -> noisy ? Criticality.SHEDDABLE : Criticality.DEFAULT;
            case "random" -> Criticality.values()[random.nextInt(3)];
            default -> Criticality.DEFAULT;
        };
    }

    private static int pick(Random random, int[] values, Map<String, String> dimensions, String name) {
        int value = values[random.nextInt(values.length)];
        dimensions.put(name, String.valueOf(value));
        return value;
    }
}
