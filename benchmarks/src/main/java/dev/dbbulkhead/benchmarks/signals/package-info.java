/** What the database's sampler costs: its query's time and the server's CPU for it, on a server with sessions. */
@NullMarked
package dev.dbbulkhead.benchmarks.signals;

import org.jspecify.annotations.NullMarked;
