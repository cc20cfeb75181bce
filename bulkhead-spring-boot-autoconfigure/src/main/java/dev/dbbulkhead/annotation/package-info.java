/**
 * {@link dev.dbbulkhead.annotation.DbBulkhead}: the annotation that admits a method's calls through a workload's gate
 * before its transaction begins.
 */
@NullMarked
package dev.dbbulkhead.annotation;

import org.jspecify.annotations.NullMarked;
