package dev.dbbulkhead.gate;

/**
 * The adaptive discipline's judgement of whether its queue stands: CoDel's rule (Nichols and Jacobson, "Controlling
 * Queue Delay", 2012), as folly's {@code Codel} and Facebook's "Fail at Scale" apply it to request queues. A pure
 * policy, fed the queue's events and the time; it neither waits nor counts permits.
 *
 * <p>The queue stands when, over a whole interval, it never got short: the smallest <em>sojourn</em> seen in the
 * interval exceeded the target delay. A queue that absorbs a burst drains within the interval (a sojourn near zero,
 * or a moment with nobody queued); one that stands never does. The minimum, not the mean, because a single short
 * moment proves that the service keeps up; one interval's delay, not one waiter's, because a burst may make every
 * waiter of a moment wait long without the queue standing.
 *
 * <p>The sojourn is sampled at each grant as the wait of the <em>oldest</em> waiter then queued. Under arrival order
 * that is the served waiter's own wait — CoDel's sample at dequeue. Serving the newest first, it is not: the newest
 * waiter always waited next to nothing, and sampling it would end the standing judgement after one interval, only to
 * bring it back one interval later. The oldest waiter's wait says whether the queue got short, whatever the order.
 *
 * <p>While the queue stands, a waiter is {@linkplain #overdue overdue} once it has waited twice the target delay
 * (folly's slough timeout): it will rarely be served (the newest go first) and is refused instead. Twice, not once,
 * so that the waiters left after shedding still tell, by their waits above the target, that the queue stands.
 *
 * <p>Not thread-safe: the caller serializes every call but {@link #standing()} (a lock held for microseconds).
 */
final class StandingQueue {

    private final long targetNanos;
    private final long intervalNanos;
    private final long overdueNanos;
    private long intervalEndsAt;
    /** The smallest sojourn of the current interval; 0 once the queue was empty in it. */
    private long minSojourn = 0L;
    /** Whether nobody is queued since the last event: then every interval until the next one had an empty moment. */
    private boolean empty = true;
    /** Written under the caller's lock, read by observers without it. */
    private volatile boolean standing;

    StandingQueue(long targetNanos, long intervalNanos, long now) {
        this.targetNanos = targetNanos;
        this.intervalNanos = intervalNanos;
        this.overdueNanos = targetNanos > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * targetNanos;
        this.intervalEndsAt = now + intervalNanos;
    }

    /** Whether the last interval that ended judged the queue standing. */
    boolean standing() {
        return standing;
    }

    /** Closes the interval if it has ended by {@code now}, judging it; call before any event at {@code now}. */
    void advance(long now) {
        if (now - intervalEndsAt >= 0) {
            standing = minSojourn > targetNanos;
            intervalEndsAt = now + intervalNanos;
            minSojourn = empty ? 0L : Long.MAX_VALUE;
        }
    }

    /** A waiter was granted a running slot while the oldest waiter queued had waited {@code oldestWaitNanos}. */
    void granted(long oldestWaitNanos) {
        minSojourn = Math.min(minSojourn, oldestWaitNanos);
    }

    /** Nobody is queued any more (nor, until {@link #filled}, will the queue be judged standing for it). */
    void emptied() {
        empty = true;
        minSojourn = 0L;
    }

    /** Someone is queued again. */
    void filled() {
        empty = false;
    }

    /** Whether a waiter that has waited {@code waitedNanos} is to be refused now. */
    boolean overdue(long waitedNanos) {
        return standing && waitedNanos > overdueNanos;
    }

    /** How long a waiter waits before it may be {@link #overdue}. */
    long overdueAfterNanos() {
        return overdueNanos;
    }
}
