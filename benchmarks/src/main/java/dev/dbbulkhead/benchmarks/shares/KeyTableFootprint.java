package dev.dbbulkhead.benchmarks.shares;

import dev.dbbulkhead.gate.AdmissionGate;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * What a gate tracks of its keys, read from the gate itself: the bytes of the key table's per-slot arrays. The table
 * is the gate's own business, so it is read reflectively, for this measurement only.
 */
final class KeyTableFootprint {

    private KeyTableFootprint() {
    }

    /** The bytes of the arrays of {@code gate}'s key table (element sizes only, no headers); 0 without a table. */
    static long bytes(AdmissionGate gate) {
        try {
            Method keyTable = AdmissionGate.class.getDeclaredMethod("keyTable");
            keyTable.setAccessible(true);
            Object table = keyTable.invoke(gate);
            if (table == null) {
                return 0;
            }
            long bytes = 0;
            for (Field field : table.getClass().getDeclaredFields()) {
                if (field.getType().isArray()) {
                    field.setAccessible(true);
                    bytes += (long) Array.getLength(field.get(table)) * elementBytes(field.getType().getComponentType());
                }
            }
            return bytes;
        } catch (ReflectiveOperationException unreadable) {
            throw new IllegalStateException("The gate's key table could not be read", unreadable);
        }
    }

    private static int elementBytes(Class<?> type) {
        if (type == long.class || type == double.class) {
            return 8;
        }
        return type == byte.class || type == boolean.class ? 1 : type == short.class || type == char.class ? 2 : 4;
    }
}
