package dev.dbbulkhead.jdbc.ungated;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What a pure function of a class name answered, kept for the next frame of that class: a borrow's stack is read
 * frame by frame against dozens of package names, and the same classes come back borrow after borrow. A frame's class
 * name is its {@code Class}'s own cached string, so a lookup costs a hash already computed. Bounded: past
 * {@link #MAX_NAMES} names — an application that generates classes without end — answers are computed, not kept.
 * Thread-safe, without a lock.
 */
final class ClassNameMemo<V> {

    static final int MAX_NAMES = 4096;

    private final Map<String, V> answers = new ConcurrentHashMap<>();
    private final Function<String, V> answer;

    ClassNameMemo(Function<String, V> answer) {
        this.answer = answer;
    }

    V of(String className) {
        V known = answers.get(className);
        if (known != null) {
            return known;
        }
        V computed = answer.apply(className);
        if (answers.size() < MAX_NAMES) {
            answers.putIfAbsent(className, computed);
        }
        return computed;
    }
}
