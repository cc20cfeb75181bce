/**
 * Fleet coordination: the instances of an application that share one database lease shares of a connection budget
 * through that database ({@link dev.dbbulkhead.fleet.PostgresFleetCoordinator}), and apply them to their pools and gates.
 */
@NullMarked
package dev.dbbulkhead.fleet;

import org.jspecify.annotations.NullMarked;
