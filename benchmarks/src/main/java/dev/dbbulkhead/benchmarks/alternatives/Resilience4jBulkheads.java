package dev.dbbulkhead.benchmarks.alternatives;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import java.time.Duration;

/** Resilience4j semaphore bulkheads configured like our gates: same limit, same wait. */
public final class Resilience4jBulkheads {

    private Resilience4jBulkheads() {
    }

    /**
     * @param writableStackTrace Resilience4j's own switch; its default is {@code true}, so a default bulkhead fills
     *                           in a stack trace for every refusal
     */
    public static Bulkhead semaphoreBulkhead(String name, int maxConcurrentCalls, Duration maxWait,
                                             boolean writableStackTrace) {
        return Bulkhead.of(name, BulkheadConfig.custom()
                .maxConcurrentCalls(maxConcurrentCalls)
                .maxWaitDuration(maxWait)
                .writableStackTraceEnabled(writableStackTrace)
                .build());
    }
}
