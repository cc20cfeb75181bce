package dev.dbbulkhead.gate;

/** How a gate serves the operations that wait for an execution permit. */
public enum QueueDiscipline {

    /** In arrival order, each for at most the queue wait. */
    FIFO,

    /**
     * CoDel (controlled delay, Nichols and Jacobson) with adaptive LIFO: in arrival order while the queue absorbs
     * bursts; once it stands — every operation in an
     * {@linkplain GateConfig#queueInterval() interval} waited longer than the {@linkplain GateConfig#queueTargetDelay()
     * target delay} — the newest first, and waiters that have waited past the target are refused (with
     * {@code QUEUE_TIMEOUT}, the listener told {@link GateListener#onShed}). Back to arrival order when the standing
     * queue is gone: an interval in which nobody was queued for at least the target delay. The queue wait stays the
     * upper bound of every wait.
     */
    CODEL
}
