/**
 * The {@code dbbulkheads} actuator endpoint: every workload's limits, occupancy, totals, pool and queue, the budget
 * findings and the fleet; a resize of B and Q at run time. Its response types are the {@code *Descriptor} records.
 */
@NullMarked
package dev.dbbulkhead.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
