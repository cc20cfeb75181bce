package dev.dbbulkhead.fleet.support;

import dev.dbbulkhead.fleet.FleetLog;
import dev.dbbulkhead.fleet.FleetMember;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The fleet member's lines in the application's own log, through Spring's logging bridge, under the logger
 * {@code dev.dbbulkhead.fleet.FleetMember}: Spring Boot keeps its logging system up until the application context
 * has closed, so the leave written while the context stops is the last fleet line of the log, not lost with
 * {@code java.util.logging}'s shutdown hook.
 */
public final class ApplicationFleetLog implements FleetLog {

    private final Log log = LogFactory.getLog(FleetMember.class);

    @Override
    public void info(String message) {
        log.info(message);
    }

    @Override
    public void warn(String message, @Nullable Throwable cause) {
        log.warn(message, cause);
    }
}
