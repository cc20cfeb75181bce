package dev.dbbulkhead.benchmarks.retry;

import dev.dbbulkhead.retry.RetryBackoff;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;

/**
 * A client's request as a client that retries on 503 makes it: sent, and after each 503 sent again, once the
 * jittered backoff has passed, while it has attempts left and its {@link RetryRule} allows. A request that ends
 * refused throws {@link RejectedExecutionException}, so that the load harness counts it as a refusal.
 */
final class RetryingCaller {

    private final HttpClient http;
    private final HttpRequest request;
    private final int maxAttempts;
    private final RetryBackoff backoff;
    private final RetryRule rule;
    private final AttemptCounts counts;

    RetryingCaller(HttpClient http, URI target, int maxAttempts, RetryBackoff backoff, RetryRule rule,
                   AttemptCounts counts) {
        this.http = http;
        this.request = HttpRequest.newBuilder(target).GET().build();
        this.maxAttempts = maxAttempts;
        this.backoff = backoff;
        this.rule = rule;
        this.counts = counts;
    }

    /** One request, to its end: a 200, or a last 503. */
    void call() throws IOException, InterruptedException {
        counts.firstAttempts.increment();
        rule.firstAttempt().run();
        for (int attempt = 1; ; attempt++) {
            int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status == 200) {
                counts.ok.increment();
                return;
            }
            if (status != 503) {
                throw new IllegalStateException("HTTP " + status + " from " + request.uri());
            }
            counts.serviceUnavailable.increment();
            if (attempt == maxAttempts) {
                throw new RejectedExecutionException("503 on each of " + maxAttempts + " attempts");
            }
            // The budget is asked before the backoff, as Finagle's retry filter does: a refused retry waits for
            // nothing.
            if (!rule.mayRetry().getAsBoolean()) {
                counts.retriesRefused.increment();
                throw new RejectedExecutionException("503, and no retry granted");
            }
            Thread.sleep(Duration.ofNanos(backoff.nanosUntilNext(attempt - 1, Long.MAX_VALUE)));
            counts.retries.increment();
        }
    }
}
