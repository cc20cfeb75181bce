/**
 * The auto-configuration of the bulkheads from {@code db.bulkhead.*} properties: a template per workload, the
 * {@code @DbBulkhead} advisor, the start-up checks. Not API, except {@link dev.dbbulkhead.autoconfigure.BulkheadProperties}
 * (read through its property keys) and {@link dev.dbbulkhead.autoconfigure.BulkheadConfigurationException}.
 */
@NullMarked
package dev.dbbulkhead.autoconfigure;

import org.jspecify.annotations.NullMarked;
