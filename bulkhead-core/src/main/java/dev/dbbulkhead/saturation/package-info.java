/**
 * The database's own view of its saturation, read cheaply: one {@link dev.dbbulkhead.saturation.DatabaseSampler} per
 * database reads, at an interval, what its sessions wait for, how long the oldest lock wait has lasted, and its
 * commit, rollback and deadlock counts ({@link dev.dbbulkhead.saturation.DatabaseSignals}). Readers take the last
 * sample and never wait for the next one; a sample that failed or hangs leaves the last one in place, ageing.
 */
@NullMarked
package dev.dbbulkhead.saturation;

import org.jspecify.annotations.NullMarked;
