package dev.dbbulkhead.autoconfigure;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The Retry-After of a workload's refusals, in whole seconds rounded up, and the most added to it at random.
 *
 * @param seconds       the Retry-After
 * @param jitterSeconds the most added at random; unset, the Retry-After itself, so that the answers spread over twice
 *                      its span
 */
record RetryAfter(long seconds, long jitterSeconds) {

    /** A client told to stay away longer than a day would better be told the service is down. */
    private static final Duration MAX_RETRY_AFTER = Duration.ofDays(1);

    /** Both values of the workload or the defaults {@code resolver} reads. */
    static RetryAfter of(WorkloadResolver resolver) {
        long seconds = seconds(resolver);
        return new RetryAfter(seconds, jitterSeconds(resolver, () -> seconds));
    }

    /**
     * The Retry-After in whole seconds rounded up.
     *
     * @throws BulkheadConfigurationException when the value is not above zero, or longer than a day
     */
    static long seconds(WorkloadResolver resolver) {
        return resolver.get(WorkloadKeys.RETRY_AFTER).validate(retryAfter -> {
            if (retryAfter.compareTo(Duration.ZERO) <= 0 || retryAfter.compareTo(MAX_RETRY_AFTER) > 0) {
                throw new IllegalArgumentException("the Retry-After must be above 0s and at most " + MAX_RETRY_AFTER
                        + " (it is sent in whole seconds, rounded up), was " + retryAfter);
            }
            return wholeSecondsRoundedUp(retryAfter);
        });
    }

    /**
     * The jitter in whole seconds rounded up; the Retry-After's, asked of {@code retryAfterSeconds} only then, when
     * unset.
     *
     * @throws BulkheadConfigurationException when the value is negative, or longer than a day
     */
    static long jitterSeconds(WorkloadResolver resolver, LongSupplier retryAfterSeconds) {
        Setting<@Nullable Duration> jitter = resolver.get(WorkloadKeys.RETRY_AFTER_JITTER);
        Duration value = jitter.value();
        if (value == null) {
            return retryAfterSeconds.getAsLong();
        }
        return new Setting<>(jitter.property(), value).validate(given -> {
            if (given.isNegative() || given.compareTo(MAX_RETRY_AFTER) > 0) {
                throw new IllegalArgumentException("the Retry-After jitter must be from 0s to " + MAX_RETRY_AFTER
                        + " (it is sent in whole seconds, rounded up), was " + given);
            }
            return wholeSecondsRoundedUp(given);
        });
    }

    private static long wholeSecondsRoundedUp(Duration duration) {
        return duration.getSeconds() + (duration.getNano() > 0 ? 1 : 0);
    }
}
