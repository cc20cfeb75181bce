/**
 * Work that escapes the gates: a {@link dev.dbbulkhead.jdbc.ungated.WatchedDataSource} in front of a pool notices
 * every connection borrowed by a thread that is not inside an admitted operation, and its
 * {@link dev.dbbulkhead.jdbc.ungated.UngatedConnectionDetector} counts it under the application frame that borrowed
 * it, once per distinct call site and in bounded memory. Infrastructure that runs outside the gates by design
 * (schema initialisation, migrations, health checks, bootstrap) is recognised by the frames on the stack
 * ({@link dev.dbbulkhead.jdbc.ungated.CallerRules}), or by a scope ({@link dev.dbbulkhead.jdbc.ungated.UngatedWork}).
 */
@NullMarked
package dev.dbbulkhead.jdbc.ungated;

import org.jspecify.annotations.NullMarked;
