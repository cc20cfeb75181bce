package dev.dbbulkhead.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The mistakes of a check of every setting at once: a user who wrote seven mistakes learns of the seven in one
 * start-up, not in seven. While it collects, {@link Setting#validate} notes a refused value and goes on with the
 * built-in one.
 */
final class SettingMistakes {

    /** The mistakes by message: a default's mistake, inherited by every workload, is one mistake. Null outside. */
    private static final ThreadLocal<@Nullable Map<String, BulkheadConfigurationException>> COLLECTED =
            new ThreadLocal<>();

    private SettingMistakes() {
    }

    /**
     * Runs every check, each on to its end or to a refusal with nothing to go on with, and returns every mistake
     * they made, each once, in the order found.
     */
    static List<BulkheadConfigurationException> collect(List<Runnable> checks) {
        Map<String, BulkheadConfigurationException> mistakes = new LinkedHashMap<>();
        COLLECTED.set(mistakes);
        try {
            for (Runnable check : checks) {
                try {
                    check.run();
                } catch (BulkheadConfigurationException stopped) {
                    // The rest of this check waits for the next start-up; the other checks still run.
                    mistakes.putIfAbsent(stopped.getMessage(), stopped);
                }
            }
        } finally {
            COLLECTED.remove();
        }
        return List.copyOf(mistakes.values());
    }

    /** Whether {@link #collect} is collecting on this thread. */
    static boolean collecting() {
        return COLLECTED.get() != null;
    }

    /** Notes a refused value that the check goes on without. */
    static void note(BulkheadConfigurationException refused) {
        Map<String, BulkheadConfigurationException> mistakes = COLLECTED.get();
        if (mistakes != null) {
            mistakes.putIfAbsent(refused.getMessage(), refused);
        }
    }

    /**
     * Fails with {@code mistakes}: the one itself, or several in one report.
     *
     * @throws BulkheadConfigurationException naming each property refused, its value and its range
     */
    static void requireNone(List<BulkheadConfigurationException> mistakes) {
        if (mistakes.size() == 1) {
            throw mistakes.get(0);
        }
        if (!mistakes.isEmpty()) {
            throw BulkheadConfigurationException.invalidProperties(
                    mistakes.stream().map(BulkheadConfigurationException::getMessage).toList());
        }
    }
}
