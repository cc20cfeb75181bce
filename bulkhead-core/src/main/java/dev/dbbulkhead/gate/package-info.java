/**
 * The mechanism: the per-workload admission gate of B execution and B + Q admission permits
 * ({@link dev.dbbulkhead.gate.AdmissionGate}), its immutable configuration ({@link dev.dbbulkhead.gate.GateConfig}),
 * the permit an admitted operation holds, the queue disciplines and the listener contract. Knows nothing of JDBC.
 *
 * <p>Who gets the places when not everyone can: the contracts are {@link dev.dbbulkhead.gate.Criticality} and
 * {@link dev.dbbulkhead.gate.OperationClass} (what an operation is, bound to its thread), the policy is
 * {@link dev.dbbulkhead.gate.AdmissionRules} (reserves, shares, requests in progress), the order of waiting work
 * {@code WaitingWork}, and the mechanism that hands places over by it {@code ScheduledCounts}. A gate configured
 * without rules never reads any of it.
 */
@NullMarked
package dev.dbbulkhead.gate;

import org.jspecify.annotations.NullMarked;
