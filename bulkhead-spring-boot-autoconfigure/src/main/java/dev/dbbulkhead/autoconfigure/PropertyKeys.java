package dev.dbbulkhead.autoconfigure;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;

/**
 * The keys {@code db.bulkhead} accepts, read by reflection from {@link BulkheadProperties} and the classes it nests,
 * so that a key added to them is known here without further ado.
 */
final class PropertyKeys {

    /** Deeper than any properties class nests: a guard against a class that refers to itself. */
    private static final int MAX_DEPTH = 8;

    private PropertyKeys() {
    }

    /** What a name may continue with after some element. */
    sealed interface Node permits Group, Value, AnyKey, Indexed {
    }

    /**
     * A properties class: its keys by their uniform form (lower case, no dashes), which relaxed binding compares.
     *
     * @param keys the keys, each with its canonical (dashed) spelling and what follows it
     */
    record Group(Map<String, Key> keys) implements Node {
    }

    /**
     * One key of a properties class.
     *
     * @param dashed the key as the documentation writes it
     * @param node   what the key holds
     */
    record Key(String dashed, Node node) {
    }

    /**
     * A value the binder converts.
     *
     * @param type the type it is converted to
     */
    record Value(Class<?> type) implements Node {
    }

    /**
     * A map: any key, then its value.
     *
     * @param value what each entry holds
     */
    record AnyKey(Node value) implements Node {
    }

    /**
     * A list: an index, then its element (or the whole list as one comma-separated value).
     *
     * @param element what each element holds
     */
    record Indexed(Node element) implements Node {
    }

    /** The keys of {@code type}, a properties class. */
    static Group of(Class<?> type) {
        return group(type, 0);
    }

    private static Group group(Class<?> type, int depth) {
        Map<String, Key> keys = new LinkedHashMap<>();
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            Method getter = property.getReadMethod();
            if (getter == null || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            String dashed = dashed(property.getName());
            keys.put(uniform(dashed), new Key(dashed, node(getter.getGenericReturnType(), depth + 1)));
        }
        return new Group(keys);
    }

    private static Node node(Type type, int depth) {
        Class<?> raw = rawClass(type);
        if (Map.class.isAssignableFrom(raw)) {
            return new AnyKey(node(typeArgument(type, 1), depth));
        }
        if (Collection.class.isAssignableFrom(raw)) {
            return new Indexed(node(typeArgument(type, 0), depth));
        }
        if (raw.isArray()) {
            return new Indexed(node(raw.getComponentType(), depth));
        }
        if (isPropertiesClass(raw) && depth < MAX_DEPTH) {
            return group(raw, depth);
        }
        return new Value(raw);
    }

    /** A class whose keys nest under it, as opposed to a value: not the JDK's, not an enum, with properties. */
    private static boolean isPropertiesClass(Class<?> type) {
        return !type.isPrimitive() && !type.isEnum() && !type.isInterface() && !type.getName().startsWith("java.")
                && BeanUtils.getPropertyDescriptors(type).length > 1;
    }

    private static Type typeArgument(Type type, int index) {
        if (type instanceof ParameterizedType parameterized
                && parameterized.getActualTypeArguments().length > index) {
            return parameterized.getActualTypeArguments()[index];
        }
        return Object.class;
    }

    private static Class<?> rawClass(Type type) {
        if (type instanceof Class<?> plain) {
            return plain;
        }
        if (type instanceof ParameterizedType parameterized && parameterized.getRawType() instanceof Class<?> raw) {
            return raw;
        }
        return Object.class;
    }

    /** {@code maxConcurrent} as {@code max-concurrent}. */
    static String dashed(String camelCase) {
        StringBuilder dashed = new StringBuilder(camelCase.length() + 4);
        for (char character : camelCase.toCharArray()) {
            if (Character.isUpperCase(character)) {
                dashed.append('-').append(Character.toLowerCase(character));
            } else {
                dashed.append(character);
            }
        }
        return dashed.toString();
    }

    /** The form relaxed binding compares: lower case, without dashes or underscores. */
    static String uniform(String key) {
        StringBuilder uniform = new StringBuilder(key.length());
        for (char character : key.toCharArray()) {
            if (character != '-' && character != '_') {
                uniform.append(Character.toLowerCase(character));
            }
        }
        return uniform.toString();
    }

    /** Element {@code index} of {@code name} in the form {@link #uniform(String)} compares. */
    static String uniformElement(ConfigurationPropertyName name, int index) {
        return uniform(name.getElement(index, Form.UNIFORM));
    }

    /** The key of {@code group} nearest to {@code unknown} by edit distance; null for a group without keys. */
    static @Nullable Key nearest(Group group, String unknown) {
        Key nearest = null;
        int shortest = Integer.MAX_VALUE;
        for (Map.Entry<String, Key> key : group.keys().entrySet()) {
            int distance = editDistance(unknown, key.getKey());
            if (distance < shortest) {
                shortest = distance;
                nearest = key.getValue();
            }
        }
        return nearest;
    }

    /** Levenshtein distance: the fewest insertions, deletions and substitutions that turn one into the other. */
    static int editDistance(String from, String to) {
        int[] previous = new int[to.length() + 1];
        int[] current = new int[to.length() + 1];
        for (int j = 0; j <= to.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= from.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= to.length(); j++) {
                int substitution = previous[j - 1] + (from.charAt(i - 1) == to.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[to.length()];
    }
}
