/**
 * The plain-JDBC form, no framework needed: {@link dev.dbbulkhead.jdbc.JdbcBulkhead} admits, then runs one transaction on
 * a connection of its {@code DataSource}; PostgreSQL statement and lock timeouts and deadlines per transaction.
 */
@NullMarked
package dev.dbbulkhead.jdbc;

import org.jspecify.annotations.NullMarked;
