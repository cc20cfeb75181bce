/**
 * Auto-configuration of fleet coordination through the shared PostgreSQL. Not API.
 */
@NullMarked
package dev.dbbulkhead.autoconfigure.fleet;

import org.jspecify.annotations.NullMarked;
