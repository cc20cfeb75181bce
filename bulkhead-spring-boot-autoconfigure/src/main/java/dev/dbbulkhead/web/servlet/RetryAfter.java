package dev.dbbulkhead.web.servlet;

import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * The {@code Retry-After} of a workload's 503: at least {@code seconds}, plus up to {@code jitterSeconds} drawn at
 * random for each answer, so that clients refused together do not all come back in the same second and refuse each
 * other again.
 *
 * @param seconds       the shortest Retry-After, in whole seconds; at least 1
 * @param jitterSeconds the most added at random, in whole seconds; at least 0, 0 for always {@code seconds}
 */
public record RetryAfter(long seconds, long jitterSeconds) {

    /** @throws IllegalArgumentException for fewer than 1 second, or a negative jitter */
    public RetryAfter {
        if (seconds < 1 || jitterSeconds < 0 || seconds > Long.MAX_VALUE - jitterSeconds) {
            throw new IllegalArgumentException("Retry-After must be at least 1s with a jitter of 0s or more, was "
                    + seconds + "s + up to " + jitterSeconds + "s");
        }
    }

    /** The Retry-After of one answer: uniform over {@code seconds} to {@code seconds + jitterSeconds}, both included. */
    long draw() {
        return draw(ThreadLocalRandom.current());
    }

    long draw(RandomGenerator random) {
        return jitterSeconds == 0 ? seconds : seconds + random.nextLong(jitterSeconds + 1);
    }
}
