/**
 * What the project's own tests share: a real PostgreSQL (embedded, a container, or one named in the environment),
 * an embedded one a test configures and restarts, fault injection around a real pool, waiting without sleeps, and
 * the public API listing. Not published.
 */
@NullMarked
package dev.dbbulkhead.testing;

import org.jspecify.annotations.NullMarked;
