package dev.dbbulkhead.fleet;

import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@link FleetMember} writes what it does: joins, share changes, lapses, the fencing of other members,
 * failed renewals, its leave. An application with a logging framework of its own passes one that writes there, so
 * that the lines land in the application's log from start-up to the last line of shutdown; {@link #systemLogger()}
 * is for the rest.
 */
public interface FleetLog {

    /** A change of state the operator should be able to follow. */
    void info(String message);

    /** Something the operator should look at: the fleet runs, but with less than it could or should. */
    void warn(String message, @Nullable Throwable cause);

    /**
     * Writes through {@link System.Logger}, named after {@link FleetMember}. In an application whose logging sits
     * on {@code java.util.logging}, lines written after that framework's own shutdown hook ran are lost: prefer a
     * log of the application's framework where it has one.
     */
    static FleetLog systemLogger() {
        System.Logger logger = System.getLogger(FleetMember.class.getName());
        return new FleetLog() {
            @Override
            public void info(String message) {
                logger.log(Level.INFO, message);
            }

            @Override
            public void warn(String message, @Nullable Throwable cause) {
                logger.log(Level.WARNING, message, cause);
            }
        };
    }
}
