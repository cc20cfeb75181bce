/**
 * The database's own view of its saturation, read cheaply: one {@link dev.dbbulkhead.saturation.DatabaseSampler} per
 * database reads, at an interval, what its sessions wait for, how long the oldest lock wait has lasted, and its
 * commit, rollback and deadlock counts ({@link dev.dbbulkhead.saturation.DatabaseSignals}). Readers take the last
 * sample and never wait for the next one; a sample that failed or hangs leaves the last one in place, ageing.
 *
 * <p>The limit that follows them is a policy and a mechanism, apart: {@link dev.dbbulkhead.saturation.SaturationPolicy}
 * tells lock contention from saturated processors and disks and from a healthy database, and decides each workload's
 * cap, the least critical lowered first; {@link dev.dbbulkhead.saturation.SaturationLimits} applies the caps of the
 * workloads it steers at each sample, and for those it only recommends for shows one B over a window of samples,
 * moved only on a real change.
 */
@NullMarked
package dev.dbbulkhead.saturation;

import org.jspecify.annotations.NullMarked;
