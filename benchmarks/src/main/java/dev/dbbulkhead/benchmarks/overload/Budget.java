package dev.dbbulkhead.benchmarks.overload;

import java.time.Duration;

/**
 * What a guard lets through: B operations at once, Q more waiting, each waiting at most the queue wait. Guards
 * that have no queue bound (Resilience4j, Spring) take B and the wait where they have such a setting.
 */
public record Budget(int maxConcurrent, int maxQueued, Duration queueWait) {
}
