package dev.dbbulkhead.gate;

/** How a gate serves the operations that wait for an execution permit. */
public enum QueueDiscipline {

    /** In arrival order, each for at most the queue wait. */
    FIFO,

    /**
     * In arrival order while the queue absorbs bursts; once it stands — every operation in an
     * {@linkplain GateConfig#queueInterval() interval} waited longer than the {@linkplain GateConfig#queueTargetDelay()
     * target delay} — the newest first, and waiters past the target are refused. Back to arrival order when the
     * standing queue is gone. The queue wait stays the upper bound of every wait.
     */
    ADAPTIVE
}
