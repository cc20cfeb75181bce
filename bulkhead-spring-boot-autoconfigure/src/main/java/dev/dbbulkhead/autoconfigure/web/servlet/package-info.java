/**
 * Auto-configuration of the HTTP 503 answer to rejections in a Spring MVC application. Not API.
 */
@NullMarked
package dev.dbbulkhead.autoconfigure.web.servlet;

import org.jspecify.annotations.NullMarked;
