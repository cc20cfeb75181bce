package dev.dbbulkhead.gate;

/**
 * The times of one admission off the fast path: when its wait began, how long it may wait, and its deadline if it has
 * one. Read by the entry, the hand-out and the permit; made once per such admission.
 *
 * @param waitStart     {@link System#nanoTime()} as the admission began, or 0 when nothing on its path is timed
 * @param maxWaitNanos  the longest it may wait for a running slot
 * @param deadlineNanos when its deadline runs out ({@link System#nanoTime()}); meaningless without one
 * @param hasDeadline   whether it has a deadline
 */
record EntryTimes(long waitStart, long maxWaitNanos, long deadlineNanos, boolean hasDeadline) {

    /** Whether the deadline, if any, has run out at {@code now}. */
    boolean deadlinePassed(long now) {
        return hasDeadline && now - deadlineNanos >= 0;
    }
}
