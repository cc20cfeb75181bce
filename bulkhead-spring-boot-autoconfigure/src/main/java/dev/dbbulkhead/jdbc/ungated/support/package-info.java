/**
 * The glue between the detection of work that escapes the gates and Spring: the pools the gates admit to, watched
 * ({@link dev.dbbulkhead.jdbc.ungated.support.WatchedPools}) as their DataSource beans are made
 * ({@link dev.dbbulkhead.jdbc.ungated.support.WatchedPoolPostProcessor}) through a stand-in of the pool's own class,
 * so that the bean keeps its type; each call site logged once through the application's logging
 * ({@link dev.dbbulkhead.jdbc.ungated.support.UngatedConnectionLog}); and what start-up borrowed summed up when the
 * application is ready ({@link dev.dbbulkhead.jdbc.ungated.support.UngatedStartUpReport}).
 */
@NullMarked
package dev.dbbulkhead.jdbc.ungated.support;

import org.jspecify.annotations.NullMarked;
