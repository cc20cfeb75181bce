/**
 * How long a caller will wait, as callers send it: the values of timeout headers, read into a budget that
 * {@link dev.dbbulkhead.gate.RequestDeadline} turns into the request's deadline.
 */
@NullMarked
package dev.dbbulkhead.deadline;

import org.jspecify.annotations.NullMarked;
