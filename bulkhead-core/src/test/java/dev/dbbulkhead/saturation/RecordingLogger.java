package dev.dbbulkhead.saturation;

import java.util.List;
import java.util.Locale;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** A logger that keeps each line as "level: message", for tests to read back. */
final class RecordingLogger implements System.Logger {

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Consumer<String> whenWritten;

    RecordingLogger() {
        this(message -> { });
    }

    /** Also hands each message to {@code whenWritten} as it is written: what else is true at that moment. */
    RecordingLogger(Consumer<String> whenWritten) {
        this.whenWritten = whenWritten;
    }

    /** Every line written so far, in order. */
    List<String> lines() {
        return lines;
    }

    @Override
    public String getName() {
        return "recording";
    }

    @Override
    public boolean isLoggable(Level level) {
        return true;
    }

    @Override
    public void log(Level level, @Nullable ResourceBundle bundle, @Nullable String message,
                    @Nullable Throwable thrown) {
        record(level, String.valueOf(message));
    }

    @Override
    public void log(Level level, @Nullable ResourceBundle bundle, @Nullable String format,
                    @Nullable Object... params) {
        record(level, String.valueOf(format));
    }

    private void record(Level level, String message) {
        lines.add(level.getName().toLowerCase(Locale.ROOT) + ": " + message);
        whenWritten.accept(message);
    }
}
