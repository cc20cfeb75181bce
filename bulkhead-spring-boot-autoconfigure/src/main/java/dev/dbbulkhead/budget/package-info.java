/**
 * The start-up check of the connection budget: for every pool, the workloads' B against the pool size, and, with the
 * fleet described, every instance's pools against the database server's connection slots.
 */
@NullMarked
package dev.dbbulkhead.budget;

import org.jspecify.annotations.NullMarked;
