package dev.dbbulkhead.saturation;

import org.jspecify.annotations.Nullable;

/**
 * What an active server session was doing at the instant it was sampled, by PostgreSQL's wait event type. The
 * classes tell saturations apart that call for different answers: more concurrency makes {@link #LOCK} contention
 * worse, while {@link #CPU} says the server's processors are busy, whoever keeps them so.
 */
public enum WaitClass {
    /** Running on a processor, or ready to: no wait event. */
    CPU,
    /** Waiting for a heavyweight lock: a row, a table, another transaction's end. */
    LOCK,
    /** Waiting for a lightweight lock on shared memory, such as WAL insertion or buffer mapping. */
    LWLOCK,
    /** Waiting for a read or a write. */
    IO,
    /** Waiting for another server process: a parallel worker, a synchronous replica. */
    IPC,
    /** Waiting for the client to send or take data while a statement runs. */
    CLIENT,
    /** Any other wait: a timeout ({@code pg_sleep}), a buffer pin, an extension's. */
    OTHER;

    /** The class of PostgreSQL's {@code wait_event_type}; none (null or empty) is {@link #CPU}. */
    public static WaitClass of(@Nullable String waitEventType) {
        if (waitEventType == null || waitEventType.isEmpty()) {
            return CPU;
        }
        return switch (waitEventType) {
            case "Lock" -> LOCK;
            case "LWLock" -> LWLOCK;
            case "IO" -> IO;
            case "IPC" -> IPC;
            case "Client" -> CLIENT;
            default -> OTHER;
        };
    }
}
