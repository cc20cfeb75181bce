package dev.dbbulkhead.fleet;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A member's log kept as lines, {@code INFO …} and {@code WARN …}, for tests to read while the members write: several
 * members may share one.
 */
final class RecordingFleetLog implements FleetLog {

    final List<String> lines = new CopyOnWriteArrayList<>();

    @Override
    public void info(String message) {
        lines.add("INFO " + message);
    }

    @Override
    public void warn(String message, @Nullable Throwable cause) {
        lines.add("WARN " + message);
    }
}
