/** The starter's own connections to the database, apart from the application's pool. */
@NullMarked
package dev.dbbulkhead.jdbc.side;

import org.jspecify.annotations.NullMarked;
