/**
 * Micrometer observations of the gate wait and of the admitted execution, with replaceable conventions.
 */
@NullMarked
package dev.dbbulkhead.observation;

import org.jspecify.annotations.NullMarked;
