package dev.dbbulkhead.fleet.support;

import dev.dbbulkhead.fleet.FleetSettings;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The {@code application_name}s by which the server tells one member's sessions from every other's: its pool's
 * sessions, which the coordinator ends once the member's lease expired, and its coordinator's own, which it never
 * ends. The application's own name comes first, so that operators still recognise the sessions.
 *
 * @param member      the name of the pool's sessions
 * @param coordinator the name of the coordinator's session
 */
public record SessionNames(String member, String coordinator) {

    /**
     * @param applicationName the name the application gave its sessions, if any
     * @param tag             unique among the fleet's members, printable ASCII
     */
    public static SessionNames of(@Nullable String applicationName, String tag) {
        String memberSuffix = "(db-bulkhead member " + tag + ")";
        String coordinatorSuffix = "(db-bulkhead coordinator " + tag + ")";
        String base = printable(applicationName);
        // The suffixes must survive the server's truncation whole: the application's part is cut instead.
        int room = FleetSettings.MAX_SESSION_NAME_LENGTH - coordinatorSuffix.length() - 1;
        if (base.length() > room) {
            base = base.substring(0, Math.max(0, room));
        }
        String prefix = base.isEmpty() ? "" : base + " ";
        return new SessionNames(prefix + memberSuffix, prefix + coordinatorSuffix);
    }

    /** The server keeps only printable ASCII in {@code application_name}; anything else would never match. */
    private static String printable(@Nullable String name) {
        if (name == null) {
            return "";
        }
        StringBuilder kept = new StringBuilder();
        for (byte b : name.getBytes(StandardCharsets.US_ASCII)) {
            kept.append(b >= 32 && b < 127 ? (char) b : '?');
        }
        return kept.toString().strip();
    }
}
