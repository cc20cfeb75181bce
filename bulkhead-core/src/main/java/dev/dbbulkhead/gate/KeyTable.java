package dev.dbbulkhead.gate;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The keys (tenants) of one gate's operations, as a fixed-size table of counters: the mechanism of the fair shares
 * whose policy is {@link AdmissionRules#share}. A key is not stored: it is hashed to one of the table's slots, and a
 * slot counts the operations inside the gate (running or waiting) of the keys that hash to it. Its memory is three
 * arrays of {@link AdmissionRules#keySlots()} entries, allocated once, whatever keys clients send; a flood of distinct
 * keys can only fill the table's slots, and every step below is constant work on one slot.
 *
 * <p>A slot is <em>counted</em> — its weight shares the places — while an operation of its keys is inside, or while
 * one of them was refused in the current or the previous epoch. An epoch is {@code B + Q} keyed admission attempts:
 * a refused key keeps claiming its share while it retries, and is evicted once it has not asked for two epochs. So a
 * key refused because another filled the gate makes that other's share shrink at its next admission, and an idle key
 * weighs nothing. Keys that collide share one slot and one share (the weight of the first to claim it): a cost in
 * fairness, never in the limits. The hash is fixed, not keyed: equal {@code String} hash codes always collide anyway.
 *
 * <p>Thread-safe: every step takes one lock for a few field updates, never while waiting; the gate's counts word is
 * updated inside it by {@link #admit}, so that the share decided is the share taken.
 */
final class KeyTable {

    private static final long NEVER = Long.MIN_VALUE / 2;

    private final ReentrantLock lock = new ReentrantLock();
    private final int mask;
    /** Operations inside, per slot. */
    private final int[] inside;
    /** The weight of a slot while it is counted. */
    private final int[] weight;
    /** The epoch in which a key of the slot was last refused; {@link #NEVER} before. */
    private final long[] refusedIn;
    private long epoch;
    private int attemptsInEpoch;
    /** The weights, and the number, of the slots counted because an operation is inside. */
    private long insideWeight;
    private int insideSlots;
    /** The same for slots counted only because they were refused, by the parity of the epoch they were refused in. */
    private final long[] refusedWeight = new long[2];
    private final int[] refusedSlots = new int[2];

    KeyTable(int slots) {
        mask = slots - 1;
        inside = new int[slots];
        weight = new int[slots];
        refusedIn = new long[slots];
        Arrays.fill(refusedIn, NEVER);
    }

    /** The slot of {@code key}: its hash code spread over the table, so that keys alike in their low bits part. */
    int slotOf(String key) {
        int h = key.hashCode() * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    /**
     * Admits an operation of the slot's key, of {@code keyWeight}, through {@code counts} within {@code rules} for
     * {@code criticality}: refused with {@link AdmissionCounts.Entry#OVER_SHARE} when the slot holds its share of
     * the limits in force, otherwise as {@link AdmissionCounts#tryEnter} decides, and counted in the slot if admitted.
     */
    AdmissionCounts.Entry admit(int slot, int keyWeight, AdmissionCounts counts, AdmissionRules rules,
                                Criticality criticality) {
        lock.lock();
        try {
            int places = counts.limits().maxAdmitted();
            tick(places);
            long others = countedWeight() - (isCounted(slot) ? weight[slot] : 0);
            AdmissionCounts.Entry entry = inside[slot] >= AdmissionRules.share(places, keyWeight, others + keyWeight)
                    ? AdmissionCounts.Entry.OVER_SHARE : counts.tryEnter(rules, criticality);
            if (entry.admitted()) {
                enter(slot, keyWeight);
            } else {
                refused(slot, keyWeight);
            }
            return entry;
        } finally {
            lock.unlock();
        }
    }

    /** An operation of the slot leaves the gate (ran, timed out or was interrupted): its place in the slot is back. */
    void leave(int slot) {
        lock.lock();
        try {
            if (--inside[slot] == 0) {
                insideWeight -= weight[slot];
                insideSlots--;
                // Refused while its other operations were inside: it goes on claiming its share for the epoch.
                if (refusedRecently(slot)) {
                    countRefused(slot, +1);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void enter(int slot, int keyWeight) {
        if (inside[slot]++ == 0) {
            if (refusedRecently(slot)) {
                countRefused(slot, -1);
            }
            weight[slot] = keyWeight;
            insideWeight += keyWeight;
            insideSlots++;
        }
    }

    private void refused(int slot, int keyWeight) {
        if (inside[slot] == 0) {
            if (refusedRecently(slot)) {
                countRefused(slot, -1);
            }
            weight[slot] = keyWeight;
            refusedIn[slot] = epoch;
            countRefused(slot, +1);
        } else {
            refusedIn[slot] = epoch;
        }
    }

    /** One more keyed attempt; every {@code places} of them an epoch ends, and the refusals of two epochs ago expire. */
    private void tick(int places) {
        if (++attemptsInEpoch >= places) {
            attemptsInEpoch = 0;
            epoch++;
            refusedWeight[(int) (epoch & 1)] = 0;
            refusedSlots[(int) (epoch & 1)] = 0;
        }
    }

    private void countRefused(int slot, int sign) {
        int parity = (int) (refusedIn[slot] & 1);
        refusedWeight[parity] += sign * (long) weight[slot];
        refusedSlots[parity] += sign;
    }

    private boolean refusedRecently(int slot) {
        return refusedIn[slot] >= epoch - 1;
    }

    private boolean isCounted(int slot) {
        return inside[slot] > 0 || refusedRecently(slot);
    }

    private long countedWeight() {
        return insideWeight + refusedWeight[0] + refusedWeight[1];
    }

    /** How many slots the table has: fixed when built. */
    int capacity() {
        return inside.length;
    }

    /** How many slots are counted now (keys with an operation inside or refused lately). For observation only. */
    int countedSlots() {
        lock.lock();
        try {
            return insideSlots + refusedSlots[0] + refusedSlots[1];
        } finally {
            lock.unlock();
        }
    }

    /** Operations inside of the keys of {@code key}'s slot. For observation and tests only. */
    int insideOf(String key) {
        lock.lock();
        try {
            return inside[slotOf(key)];
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the running sums agree with the slots, recounted one by one, and no slot counts below zero: for the
     * model checks, which must find the table as consistent after any interleaving as after none.
     */
    boolean consistent() {
        lock.lock();
        try {
            long weights = 0;
            int slots = 0;
            for (int slot = 0; slot < inside.length; slot++) {
                if (inside[slot] < 0) {
                    return false;
                }
                if (isCounted(slot)) {
                    weights += weight[slot];
                    slots++;
                }
            }
            return weights == countedWeight() && slots == insideSlots + refusedSlots[0] + refusedSlots[1];
        } finally {
            lock.unlock();
        }
    }

    /** Operations inside, over every slot. For the model checks' end state. */
    int insideTotal() {
        lock.lock();
        try {
            int total = 0;
            for (int count : inside) {
                total += count;
            }
            return total;
        } finally {
            lock.unlock();
        }
    }
}
