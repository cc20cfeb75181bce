/**
 * The HTTP answer to a rejection in a Spring MVC application: 503 with {@code Retry-After} and a problem detail.
 */
@NullMarked
package dev.dbbulkhead.web.servlet;

import org.jspecify.annotations.NullMarked;
