package dev.dbbulkhead.gate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Who gets the places of one workload when not everyone can: places held back for more critical work
 * ({@link Criticality}), the order of waiting work — criticality, the operations of requests in progress first, fair
 * shares between the keys (tenants) of its operations — and which waiter gives its place up when every place is
 * taken. The rules only: values, and the arithmetic of the reserves; {@link WaitingWork} keeps the order and
 * {@link ScheduledCounts} hands places over by it, on the gate's slow path. Immutable; built and validated by
 * {@link #builder()}. {@link #none()} — the default of every {@link GateConfig} — keeps the gate as it is without
 * rules, fast path and arrival order included.
 *
 * <p>The shares are a matter of order, never of refusal while a place is free: each key is a flow, and the next free
 * place goes to the waiter of the flow that used the least of its weighted share of late (start-time fair queuing),
 * so that a lone key may take every place and a quiet key's next operation runs before a noisy key's backlog. With
 * every place taken, the waiter of the flow furthest over its share gives its place to a newcomer of a flow that used
 * less ({@code OVER_FAIR_SHARE}); running work is never interrupted.
 */
public final class AdmissionRules {

    /** Default share of {@code B + Q} held back for critical work: none. */
    public static final double DEFAULT_CRITICAL_RESERVE = 0.0;
    /** Default share of {@code B + Q} held back from sheddable work: none. */
    public static final double DEFAULT_SHEDDABLE_RESERVE = 0.0;
    /** Fair shares between keys are off unless asked for. */
    public static final boolean DEFAULT_FAIR_SHARES = false;
    /** Default number of idle flows a gate remembers the use of: 256, a few kilobytes per workload whatever the keys. */
    public static final int DEFAULT_KEY_SLOTS = 256;
    /** The most idle flows a gate may remember: 65,536. */
    public static final int MAX_KEY_SLOTS = 1 << 16;
    /** The weight of a key without a configured one. */
    public static final int DEFAULT_KEY_WEIGHT = 1;
    /** The largest weight of a key. */
    public static final int MAX_KEY_WEIGHT = 1_000;
    /**
     * The key of operations that have none, under fair shares: {@value}. They share one flow, held to one share like
     * any key; otherwise a client that leaves its key out would be held to no share at all.
     */
    public static final String DEFAULT_KEYLESS_KEY = "(keyless)";
    /** The operations of a request in progress wait like any other unless asked for. */
    public static final boolean DEFAULT_IN_PROGRESS_FIRST = false;
    /** {@link #maxRunningPerKey()} when a key may run on every place: no cap, the default. */
    public static final int NO_RUNNING_CAP = 0;

    private static final AdmissionRules NONE = builder().build();

    private final double criticalReserve;
    private final double sheddableReserve;
    private final boolean fairShares;
    private final int keySlots;
    private final Map<String, Integer> keyWeights;
    private final String keylessKey;
    private final boolean inProgressFirst;
    private final int maxRunningPerKey;

    private AdmissionRules(Builder builder, double sheddableReserve) {
        this.criticalReserve = builder.criticalReserve;
        this.sheddableReserve = sheddableReserve;
        this.fairShares = builder.fairShares;
        this.keySlots = builder.keySlots;
        this.keyWeights = Map.copyOf(builder.keyWeights);
        this.keylessKey = builder.keylessKey;
        this.inProgressFirst = builder.inProgressFirst;
        this.maxRunningPerKey = builder.maxRunningPerKey;
    }

    /** No rules: every operation is admitted as by a gate without them. */
    public static AdmissionRules none() {
        return NONE;
    }

    /** A builder starting from {@link #none()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these rules. */
    public Builder toBuilder() {
        return new Builder().criticalReserve(criticalReserve).sheddableReserve(sheddableReserve)
                .fairShares(fairShares).keySlots(keySlots).keyWeights(keyWeights).keylessKey(keylessKey)
                .inProgressFirst(inProgressFirst).maxRunningPerKey(maxRunningPerKey);
    }

    /** Whether these rules change nothing: no place held back and no shares, so the gate keeps its fast path. */
    public boolean isNone() {
        return criticalReserve == 0.0 && sheddableReserve == 0.0 && !fairShares && !inProgressFirst;
    }

    /**
     * Whether a waiting operation of a request that already committed an operation ({@link RequestCommits}) runs
     * before the new requests' operations of its criticality, within a bound that keeps those from starving.
     */
    public boolean inProgressFirst() {
        return inProgressFirst;
    }

    /** The share of {@code B + Q} only critical work may take. */
    public double criticalReserve() {
        return criticalReserve;
    }

    /** The share of {@code B + Q} sheddable work may not take (the critical reserve included). */
    public double sheddableReserve() {
        return sheddableReserve;
    }

    /** Whether the keys of operations are held to fair shares. */
    public boolean fairShares() {
        return fairShares;
    }

    /**
     * How many flows without waiters a gate remembers the recent use of: keys beyond it are forgotten oldest first,
     * so memory stays fixed whatever keys callers send.
     */
    public int keySlots() {
        return keySlots;
    }

    /** The configured weights; keys not listed weigh {@value #DEFAULT_KEY_WEIGHT}. */
    public Map<String, Integer> keyWeights() {
        return keyWeights;
    }

    /**
     * The key under which operations without one are held to a share: they are one flow, of this key's weight
     * (default {@value #DEFAULT_KEYLESS_KEY}).
     */
    public String keylessKey() {
        return keylessKey;
    }

    /**
     * The most operations of one key (one flow: the keyless key's too) that run at once, or {@link #NO_RUNNING_CAP}.
     * An operation of a key running its cap waits — in the order, its tag kept — until one of them ends, while other
     * keys' operations take the free places; it is refused only as any waiter is, when its wait runs out or no queue
     * place is left.
     */
    public int maxRunningPerKey() {
        return maxRunningPerKey;
    }

    /**
     * Whether a rule reads what each flow runs — the cap per key: then an operation that runs is counted in its flow
     * and its permit names the flow when released. Rules that only reorder waiters leave it false, and cost nothing
     * for it.
     */
    boolean flowsCountRunning() {
        return maxRunningPerKey != NO_RUNNING_CAP;
    }

    /** The weight of {@code key}. */
    int weightOf(String key) {
        return keyWeights.isEmpty() ? DEFAULT_KEY_WEIGHT : keyWeights.getOrDefault(key, DEFAULT_KEY_WEIGHT);
    }

    /**
     * How many operations of {@code criticality} may be inside a gate of {@code maxAdmitted} places: all of them for
     * critical work, fewer the places held back (rounded down, so a reserve never takes a whole small gate).
     */
    int admittedCeiling(Criticality criticality, int maxAdmitted) {
        double reserve = switch (criticality) {
            case CRITICAL -> 0.0;
            case DEFAULT -> criticalReserve;
            case SHEDDABLE -> sheddableReserve;
        };
        return maxAdmitted - (int) (reserve * maxAdmitted);
    }


    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof AdmissionRules that && criticalReserve == that.criticalReserve
                && sheddableReserve == that.sheddableReserve && fairShares == that.fairShares
                && keySlots == that.keySlots && keyWeights.equals(that.keyWeights) && keylessKey.equals(that.keylessKey)
                && inProgressFirst == that.inProgressFirst && maxRunningPerKey == that.maxRunningPerKey;
    }

    @Override
    public int hashCode() {
        return Objects.hash(criticalReserve, sheddableReserve, fairShares, keySlots, keyWeights, keylessKey,
                inProgressFirst, maxRunningPerKey);
    }

    @Override
    public String toString() {
        return "AdmissionRules[criticalReserve=" + criticalReserve + ", sheddableReserve=" + sheddableReserve
                + ", fairShares=" + fairShares + ", keySlots=" + keySlots + ", keyWeights=" + keyWeights + ", keylessKey="
                + keylessKey + ", inProgressFirst=" + inProgressFirst
                + (maxRunningPerKey == NO_RUNNING_CAP ? "" : ", maxRunningPerKey=" + maxRunningPerKey) + "]";
    }

    /** Validates every value when it is set, and their combination when built. Not thread-safe. */
    public static final class Builder {

        private double criticalReserve = DEFAULT_CRITICAL_RESERVE;
        private double sheddableReserve = DEFAULT_SHEDDABLE_RESERVE;
        private boolean fairShares = DEFAULT_FAIR_SHARES;
        private int keySlots = DEFAULT_KEY_SLOTS;
        private final Map<String, Integer> keyWeights = new LinkedHashMap<>();
        private String keylessKey = DEFAULT_KEYLESS_KEY;
        private boolean inProgressFirst = DEFAULT_IN_PROGRESS_FIRST;
        private int maxRunningPerKey = NO_RUNNING_CAP;

        private Builder() {
        }

        /**
         * The most operations of one key running at once: from 1 to {@link Integer#MAX_VALUE}, or
         * {@link #NO_RUNNING_CAP} for none (the default). Needs fair shares (checked when built): without them every
         * operation is of one flow, and the cap would only be a smaller B.
         */
        public Builder maxRunningPerKey(int maxRunningPerKey) {
            if (maxRunningPerKey < NO_RUNNING_CAP) {
                throw new IllegalArgumentException("maxRunningPerKey must be between 1 and " + Integer.MAX_VALUE
                        + ", or " + NO_RUNNING_CAP + " for no cap, was " + maxRunningPerKey);
            }
            this.maxRunningPerKey = maxRunningPerKey;
            return this;
        }

        /**
         * Whether the operations of a request in progress wait before new requests' of their criticality (default
         * {@value #DEFAULT_IN_PROGRESS_FIRST}).
         */
        public Builder inProgressFirst(boolean inProgressFirst) {
            this.inProgressFirst = inProgressFirst;
            return this;
        }

        /**
         * The key operations without one are held to a share under (default {@value #DEFAULT_KEYLESS_KEY}): not
         * blank, at most {@value OperationClass#MAX_KEY_LENGTH} characters. Naming a key of {@link #keyWeights}
         * gives them its weight.
         */
        public Builder keylessKey(String keylessKey) {
            Objects.requireNonNull(keylessKey, "keylessKey");
            if (keylessKey.isBlank() || keylessKey.length() > OperationClass.MAX_KEY_LENGTH) {
                throw new IllegalArgumentException("keylessKey must be 1 to " + OperationClass.MAX_KEY_LENGTH
                        + " characters, not blank, was '" + keylessKey + "'");
            }
            this.keylessKey = keylessKey;
            return this;
        }

        /** At least 0 and below 1: the share of {@code B + Q} held back for critical work. */
        public Builder criticalReserve(double criticalReserve) {
            this.criticalReserve = requireReserve("criticalReserve", criticalReserve);
            return this;
        }

        /** At least the critical reserve (checked when built) and below 1: held back from sheddable work. */
        public Builder sheddableReserve(double sheddableReserve) {
            this.sheddableReserve = requireReserve("sheddableReserve", sheddableReserve);
            return this;
        }

        /** Whether keys are held to fair shares (default {@value #DEFAULT_FAIR_SHARES}). */
        public Builder fairShares(boolean fairShares) {
            this.fairShares = fairShares;
            return this;
        }

        /** A power of two from 1 to {@value #MAX_KEY_SLOTS} (default {@value #DEFAULT_KEY_SLOTS}). */
        public Builder keySlots(int keySlots) {
            if (keySlots < 1 || keySlots > MAX_KEY_SLOTS || Integer.bitCount(keySlots) != 1) {
                throw new IllegalArgumentException("keySlots must be a power of two between 1 and " + MAX_KEY_SLOTS
                        + ", was " + keySlots);
            }
            this.keySlots = keySlots;
            return this;
        }

        /** Replaces the weights: each from 1 to {@value #MAX_KEY_WEIGHT}; keys not listed weigh 1. */
        public Builder keyWeights(Map<String, Integer> weights) {
            Objects.requireNonNull(weights, "keyWeights");
            Map<String, Integer> checked = new LinkedHashMap<>();
            weights.forEach((key, weight) -> checked.put(Objects.requireNonNull(key, "a key of keyWeights"),
                    requireWeight(key, weight)));
            keyWeights.clear();
            keyWeights.putAll(checked);
            return this;
        }

        /**
         * @throws IllegalArgumentException when the sheddable reserve is below the critical one, or a cap per key is set
         *                                  without fair shares
         */
        public AdmissionRules build() {
            if (maxRunningPerKey != NO_RUNNING_CAP && !fairShares) {
                throw new IllegalArgumentException("maxRunningPerKey " + maxRunningPerKey
                        + " needs fairShares: without them every operation is one flow, and the cap would be a smaller B");
            }
            if (sheddableReserve != 0.0 && sheddableReserve < criticalReserve) {
                throw new IllegalArgumentException("sheddableReserve must be between criticalReserve "
                        + criticalReserve + " and 1 (exclusive), was " + sheddableReserve);
            }
            // Unset, the sheddable reserve follows the critical one: sheddable work is never ahead of default work.
            return new AdmissionRules(this, sheddableReserve == 0.0 ? criticalReserve : sheddableReserve);
        }

        private static double requireReserve(String name, double reserve) {
            if (!(reserve >= 0.0 && reserve < 1.0)) {
                throw new IllegalArgumentException(name + " must be at least 0 and below 1, was " + reserve);
            }
            return reserve;
        }

        private static int requireWeight(String key, @Nullable Integer weight) {
            if (key.length() > OperationClass.MAX_KEY_LENGTH) {
                // Operations never carry such a key (it is shortened), so its weight would never apply.
                throw new IllegalArgumentException("keyWeights key '" + key.substring(0, 16) + "...' must be at most "
                        + OperationClass.MAX_KEY_LENGTH + " characters long, was " + key.length());
            }
            if (weight == null || weight < 1 || weight > MAX_KEY_WEIGHT) {
                throw new IllegalArgumentException("keyWeights['" + key + "'] must be between 1 and "
                        + MAX_KEY_WEIGHT + ", was " + weight);
            }
            return weight;
        }
    }
}
