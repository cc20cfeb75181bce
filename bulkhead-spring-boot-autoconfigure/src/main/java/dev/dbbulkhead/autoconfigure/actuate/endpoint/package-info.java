/**
 * Auto-configuration of the {@code dbbulkheads} actuator endpoint. Not API.
 */
@NullMarked
package dev.dbbulkhead.autoconfigure.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
