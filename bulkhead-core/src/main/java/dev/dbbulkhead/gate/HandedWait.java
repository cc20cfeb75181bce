package dev.dbbulkhead.gate;

/**
 * A queued operation's wait as the release that hands it a slot sees it: whether its thread has run since. The release
 * yields its processor until then ({@link AdmissionCounts#yieldWhileHandOverPending(HandedWait)}), and only for this
 * wait — not for the waiters other releases handed their slots to.
 */
abstract class HandedWait {

    private volatile boolean ended;

    /** Called by the waiting thread when its wait ends, however it ends: a release yielding for it may stop. */
    final void endedOnItsThread() {
        ended = true;
    }

    /** Whether the waiting thread has yet to run since its wait was decided. */
    final boolean yetToRun() {
        return !ended;
    }
}
