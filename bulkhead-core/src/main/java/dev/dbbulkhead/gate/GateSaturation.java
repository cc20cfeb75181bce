package dev.dbbulkhead.gate;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Every place of one gate, taken by {@link AdmissionGate#saturate()} with no operation behind them: while it is open,
 * every admission to the gate is refused with {@code ADMISSION_FULL}. Closing it gives the places back, once, whatever
 * thread closes it and however often.
 *
 * <p>Unlike a {@link Permit}, any thread may close it: a permit belongs to the thread whose database work it covers,
 * and must outlive that work; here no work runs, so nothing can still be using a place when it is given back.
 */
public final class GateSaturation implements AutoCloseable {

    private final String workload;
    private final int running;
    private final int queued;
    private final Runnable giveBack;
    private final AtomicBoolean released = new AtomicBoolean();

    GateSaturation(String workload, int running, int queued, Runnable giveBack) {
        this.workload = workload;
        this.running = running;
        this.queued = queued;
        this.giveBack = giveBack;
    }

    /** The workload of the saturated gate. */
    public String workload() {
        return workload;
    }

    /** The execution permits held: the gate's B when it was saturated. */
    public int running() {
        return running;
    }

    /** The queue places held: the gate's Q when it was saturated. */
    public int queued() {
        return queued;
    }

    /** Whether the places have been given back. */
    public boolean isReleased() {
        return released.get();
    }

    /** Gives every place back the first time it is called; later calls do nothing. */
    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            giveBack.run();
        }
    }

    @Override
    public String toString() {
        return "GateSaturation[" + workload + ", " + running + " running, " + queued + " queued"
                + (isReleased() ? ", released]" : "]");
    }
}
