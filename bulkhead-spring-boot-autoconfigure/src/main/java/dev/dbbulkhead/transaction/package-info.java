/**
 * The Spring transaction layer: {@link dev.dbbulkhead.transaction.BulkheadTemplate} admits, then runs a Spring-managed
 * transaction, like {@code TransactionTemplate}; {@link dev.dbbulkhead.transaction.BulkheadRegistry} holds a template per
 * workload. Needs Spring's transaction support, not Spring Boot.
 */
@NullMarked
package dev.dbbulkhead.transaction;

import org.jspecify.annotations.NullMarked;
