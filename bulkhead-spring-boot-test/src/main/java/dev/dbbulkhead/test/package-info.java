/**
 * For an application's own tests: saturating a workload on purpose, to see what the application does with its
 * refusals (its 503 page, its retries, its fallback) against the real gate.
 */
@NullMarked
package dev.dbbulkhead.test;

import org.jspecify.annotations.NullMarked;
