/** The database's signals in a Spring application: the sampler as a lifecycle, its log in the application's. */
@NullMarked
package dev.dbbulkhead.saturation.support;

import org.jspecify.annotations.NullMarked;
