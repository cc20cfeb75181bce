/**
 * The mechanism: the per-workload admission gate of B execution and B + Q admission permits
 * ({@link dev.dbbulkhead.gate.AdmissionGate}), its immutable configuration ({@link dev.dbbulkhead.gate.GateConfig}),
 * the permit an admitted operation holds, the queue disciplines and the listener contract. Knows nothing of JDBC.
 */
@NullMarked
package dev.dbbulkhead.gate;

import org.jspecify.annotations.NullMarked;
