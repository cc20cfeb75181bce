/**
 * Auto-configuration of the database's signals: the sampler of the primary data source's server. Not API.
 */
@NullMarked
package dev.dbbulkhead.autoconfigure.saturation;

import org.jspecify.annotations.NullMarked;
