package dev.dbbulkhead.autoconfigure;

import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A value of a workload's settings and the property it came from.
 *
 * @param property the full property name, as the user would write it
 * @param value    the value; null only for settings without a built-in default
 * @param builtIn  the value without the property: what a check of every setting goes on with once it has reported
 *                 this one, so that the mistakes after it are found in the same start-up
 */
record Setting<T extends @Nullable Object>(String property, T value, T builtIn) {

    /** A value that has no other to go on with: a check that refuses it stops there. */
    Setting(String property, T value) {
        this(property, value, value);
    }

    /**
     * Applies {@code check} to the value, reporting its refusal under the property; while
     * {@link SettingMistakes#collect} collects, notes the refusal and goes on with the built-in value.
     */
    <R extends @Nullable Object> R validate(Function<T, R> check) {
        try {
            return ResolvedSettings.requireValid(property, value, check);
        } catch (BulkheadConfigurationException refused) {
            if (!SettingMistakes.collecting() || Objects.equals(builtIn, value)) {
                throw refused;
            }
            SettingMistakes.note(refused);
            return ResolvedSettings.requireValid(property, builtIn, check);
        }
    }
}
