/**
 * Auto-configuration of the bulkheads' Micrometer meters. Not API.
 */
@NullMarked
package dev.dbbulkhead.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
