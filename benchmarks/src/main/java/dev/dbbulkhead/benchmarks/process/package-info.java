/** Running benchmark parts in JVMs of their own. */
package dev.dbbulkhead.benchmarks.process;
