/**
 * The policy apart from the mechanism: an adaptive concurrency limit that learns a gate's B from how long admitted
 * operations hold their permits ({@link dev.dbbulkhead.limit.AdaptiveLimit}, its configuration, and the gradient rule).
 */
@NullMarked
package dev.dbbulkhead.limit;

import org.jspecify.annotations.NullMarked;
