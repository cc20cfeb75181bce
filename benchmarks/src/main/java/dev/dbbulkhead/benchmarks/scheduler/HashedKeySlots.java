package dev.dbbulkhead.benchmarks.scheduler;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Tenant keys chosen against a table of 256 slots indexed by the key's hash, the table in which fair shares counted
 * their keys before the scheduler held each key as a flow of its own: some pairs of them would have shared a slot
 * there, the others have one each. A gate that told keys apart by their hash would treat the pairs differently from
 * the others; today's, which holds keys exactly, must not. The hash is that table's: the key's {@code String} hash
 * code times the golden-ratio constant, folded, masked.
 */
final class HashedKeySlots {

    static final int SLOTS = 256;

    private HashedKeySlots() {
    }

    /** The slot of {@code key} in a table of {@value #SLOTS}. */
    static int slotOf(String key) {
        int h = key.hashCode() * 0x9E3779B9;
        return (h ^ (h >>> 16)) & (SLOTS - 1);
    }

    /**
     * {@code count} keys named {@code prefix + n}: the first {@code 2 × pairs} in pairs, each pair sharing a slot no
     * other key of the list has; the rest each alone in its slot.
     */
    static List<String> keys(String prefix, int count, int pairs) {
        Map<Integer, String> firstBySlot = new HashMap<>();
        Set<Integer> taken = new HashSet<>();
        List<String> paired = new ArrayList<>();
        List<String> alone = new ArrayList<>();
        for (int n = 0; paired.size() < 2 * pairs || alone.size() < count - 2 * pairs; n++) {
            String key = prefix + n;
            int slot = slotOf(key);
            if (taken.contains(slot)) {
                continue;
            }
            String first = firstBySlot.get(slot);
            if (first != null && paired.size() < 2 * pairs) {
                alone.remove(first);
                paired.add(first);
                paired.add(key);
                taken.add(slot);
            } else if (first == null) {
                firstBySlot.put(slot, key);
                alone.add(key);
            }
        }
        List<String> keys = new ArrayList<>(paired);
        keys.addAll(alone.subList(0, count - 2 * pairs));
        return keys;
    }

    /** Whether {@code key} shares its slot with another of {@code keys}. */
    static boolean collides(String key, List<String> keys) {
        return keys.stream().filter(other -> !other.equals(key)).anyMatch(other -> slotOf(other) == slotOf(key));
    }
}
