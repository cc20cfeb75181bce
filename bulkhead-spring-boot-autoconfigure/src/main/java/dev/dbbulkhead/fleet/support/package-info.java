/**
 * Fleet membership as a Spring lifecycle, and a HikariCP pool as the target of a fleet share.
 */
@NullMarked
package dev.dbbulkhead.fleet.support;

import org.jspecify.annotations.NullMarked;
