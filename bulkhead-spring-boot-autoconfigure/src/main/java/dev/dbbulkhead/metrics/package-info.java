/**
 * Micrometer meters of every workload's gate, named {@code db.bulkhead.*} and tagged {@code workload}.
 */
@NullMarked
package dev.dbbulkhead.metrics;

import org.jspecify.annotations.NullMarked;
