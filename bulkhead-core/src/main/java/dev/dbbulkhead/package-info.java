/**
 * The outcomes every form of the bulkhead shares: the rejection ({@link dev.dbbulkhead.BulkheadRejectedException} and its
 * {@link dev.dbbulkhead.RejectionReason}), misuse ({@link dev.dbbulkhead.BulkheadMisuseException}), the commit whose
 * outcome is unknown, and the outcome of an admitted operation. Plain JDK: the JDBC form ({@code dev.dbbulkhead.jdbc}),
 * the gate ({@code dev.dbbulkhead.gate}), the adaptive limit ({@code dev.dbbulkhead.limit}) and fleet coordination
 * ({@code dev.dbbulkhead.fleet}) live beside it.
 */
@NullMarked
package dev.dbbulkhead;

import org.jspecify.annotations.NullMarked;
