package dev.dbbulkhead.gate;

/**
 * The CoDel discipline's judgement of whether its queue stands: CoDel's rule (Nichols and Jacobson, "Controlling
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
 * waiter always waited next to nothing. And once shedding begins, the oldest waiters are refused as they pass the
 * target, so the oldest wait left is short whatever the load. The samples therefore judge only a queue not yet
 * standing. A standing queue stops standing after an interval in which nobody was queued for at least the target
 * delay — the service caught up with the arrivals, Facebook's "last empty" rule. Not a mere empty moment: shedding
 * may empty a standing queue when releases happen to come in a cluster, and the next arrival queues again within
 * microseconds.
 *
 * <p>While the queue stands, a waiter is {@linkplain #overdue overdue} once it has waited past the target delay: it
 * will rarely be served (the newest go first) and is refused instead, so that a success never waited much more than
 * the target while the queue stands. (folly sheds at twice the target because its judgement needs waits above the
 * target to go on seeing a standing queue; this one does not, as it ends a standing queue only by a drained one.)
 *
 * <p>Not thread-safe: the caller serializes every call but {@link #standing()} (a lock held for microseconds).
 */
final class StandingQueue {

    private final long targetNanos;
    private final long intervalNanos;
    private long intervalEndsAt;
    /** The smallest sojourn of the current interval; 0 once the queue was empty in it. */
    private long minSojourn = 0L;
    /** Whether nobody is queued since the last event: then every interval until the next one had an empty moment. */
    private boolean empty = true;
    /** When the queue last became empty. */
    private long emptiedAt;
    /** Whether nobody was queued for at least the target delay at some time in the current interval. */
    private boolean drained;
    /** Written under the caller's lock, read by observers without it. */
    private volatile boolean standing;

    StandingQueue(long targetNanos, long intervalNanos, long now) {
        this.targetNanos = targetNanos;
        this.intervalNanos = intervalNanos;
        this.intervalEndsAt = now + intervalNanos;
        this.emptiedAt = now;
    }

    /** Whether the last interval that ended judged the queue standing. */
    boolean standing() {
        return standing;
    }

    /** Closes the interval if it has ended by {@code now}, judging it; call before any event at {@code now}. */
    void advance(long now) {
        if (now - intervalEndsAt >= 0) {
            noteDrained(now);
            standing = standing ? !drained : minSojourn > targetNanos;
            drained = false;
            intervalEndsAt = now + intervalNanos;
            minSojourn = empty ? 0L : Long.MAX_VALUE;
        }
    }

    /**
     * A waiter was granted a running slot while the oldest waiter queued had waited {@code oldestWaitNanos}. Heard
     * only while the queue is not judged standing: once it stands, shedding refuses the oldest waiters as they pass
     * the target, so the oldest wait left is short whether or not the service keeps up, and hearing it would end the
     * standing judgement every other interval — one interval in arrival order, with the whole queue's wait, for each
     * interval newest first. A standing queue ends only when it stays {@linkplain #emptied empty} for the target.
     */
    void granted(long oldestWaitNanos) {
        if (!standing) {
            minSojourn = Math.min(minSojourn, oldestWaitNanos);
        }
    }

    /** Nobody is queued any more (nor, until {@link #filled}, will the queue be judged standing for it). */
    void emptied(long now) {
        empty = true;
        emptiedAt = now;
        minSojourn = 0L;
    }

    /** Someone is queued again. */
    void filled(long now) {
        noteDrained(now);
        empty = false;
    }

    /**
     * Notes whether the queue, empty now, has been so for at least the target delay: what ends a standing queue.
     * Not a mere empty moment: once a queue stands, shedding may empty it while releases happen to come in a cluster,
     * and the next arrival queues again within microseconds; only a queue that stays empty for the target delay
     * proves that the service keeps up with the arrivals.
     */
    private void noteDrained(long now) {
        if (empty && now - emptiedAt >= targetNanos) {
            drained = true;
        }
    }

    /** Whether a waiter that has waited {@code waitedNanos} is to be refused now. */
    boolean overdue(long waitedNanos) {
        return standing && waitedNanos > targetNanos;
    }

    /** How long a waiter waits before it may be {@link #overdue}. */
    long overdueAfterNanos() {
        return targetNanos;
    }
}
