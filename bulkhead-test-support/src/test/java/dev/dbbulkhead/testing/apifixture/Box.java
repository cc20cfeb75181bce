package dev.dbbulkhead.testing.apifixture;

import java.util.List;

/** Generic supertypes and an intersection bound; compareTo(Object), the compiler's bridge, is not listed. */
public final class Box<N extends Number & Comparable<N>> extends Outer<N> implements Comparable<Box<N>> {

    @Override
    protected List<N> elements() {
        return List.of();
    }

    @Override
    public int compareTo(Box<N> other) {
        return 0;
    }

    public <K, V extends List<? super K>> V[] group(List<K[]> keys, Class<?> type) {
        return null;
    }
}
