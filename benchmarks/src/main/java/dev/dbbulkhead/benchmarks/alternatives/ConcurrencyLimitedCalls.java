package dev.dbbulkhead.benchmarks.alternatives;

import java.util.concurrent.Callable;
import org.springframework.resilience.annotation.ConcurrencyLimit;
import org.springframework.resilience.annotation.ConcurrencyLimit.ThrottlePolicy;

/**
 * Spring Framework 7's {@code @ConcurrencyLimit}, used as its users would: annotated methods on a bean, called
 * through the proxy that {@code @EnableResilientMethods} puts around it. Each method has a throttle of its own.
 * The limits are annotation constants, so each limit the benchmarks need has its own method.
 */
public class ConcurrencyLimitedCalls {

    /** Above the most threads any gate-cost benchmark runs, so admissions never contend for the last permit. */
    public static final int WIDE_LIMIT = 64;
    /** The pool size of the PostgreSQL scenarios. */
    public static final int POOL_SIZED_LIMIT = 10;

    /** Admits up to {@value #WIDE_LIMIT} at once, refusing more. */
    @ConcurrencyLimit(limit = WIDE_LIMIT, policy = ThrottlePolicy.REJECT)
    public void wide(Runnable body) {
        body.run();
    }

    /** Admits one at a time, refusing more: held by one thread, it refuses everyone else. */
    @ConcurrencyLimit(limit = 1, policy = ThrottlePolicy.REJECT)
    public void single(Runnable body) {
        body.run();
    }

    /** Admits up to the pool size, refusing more. */
    @ConcurrencyLimit(limit = POOL_SIZED_LIMIT, policy = ThrottlePolicy.REJECT)
    public <T> T poolSizedRejecting(Callable<T> body) throws Exception {
        return body.call();
    }

    /** Admits up to the pool size; more callers wait, without bound: the annotation's default policy. */
    @ConcurrencyLimit(limit = POOL_SIZED_LIMIT)
    public <T> T poolSizedBlocking(Callable<T> body) throws Exception {
        return body.call();
    }
}
