/**
 * For an application's own tests: saturating a workload on purpose, to see what the application does with its
 * refusals (its 503 page, its retries, its fallback) against the real gate; and bringing the gates and the watch for
 * ungated work into a test slice ({@link dev.dbbulkhead.test.AutoConfigureDbBulkhead}).
 */
@NullMarked
package dev.dbbulkhead.test;

import org.jspecify.annotations.NullMarked;
