package dev.dbbulkhead.fleet;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** A member's log kept as lines, {@code INFO …} and {@code WARN …}, for tests to read. */
final class RecordingFleetLog implements FleetLog {

    final List<String> lines = new ArrayList<>();

    @Override
    public void info(String message) {
        lines.add("INFO " + message);
    }

    @Override
    public void warn(String message, @Nullable Throwable cause) {
        lines.add("WARN " + message);
    }
}
