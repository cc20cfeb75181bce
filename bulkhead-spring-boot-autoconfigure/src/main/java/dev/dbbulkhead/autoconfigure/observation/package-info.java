/**
 * Auto-configuration of the bulkheads' Micrometer observations. Not API.
 */
@NullMarked
package dev.dbbulkhead.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
