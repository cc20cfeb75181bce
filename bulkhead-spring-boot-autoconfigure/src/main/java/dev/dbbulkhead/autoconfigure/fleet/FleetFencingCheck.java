package dev.dbbulkhead.autoconfigure.fleet;

import dev.dbbulkhead.fleet.support.FencingReadiness;
import dev.dbbulkhead.fleet.support.FleetMembership;
import dev.dbbulkhead.fleet.support.FleetPool;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Warns at start-up when the other members could not fence this one. Made once the membership has joined, because
 * the check borrows a connection of the application's pool, which must then be within the member's grant, and finds
 * the coordinator's session, which the coordinator keeps open from its first renewal on.
 */
final class FleetFencingCheck {

    private static final Log logger = LogFactory.getLog(BulkheadFleetAutoConfiguration.class);

    FleetFencingCheck(FleetMembership joined, FleetPool pool) {
        FencingReadiness.check(pool).ifPresent(reason -> logger.warn(
                "Fleet member " + joined.snapshot().memberId() + " cannot be fenced: " + reason));
    }
}
