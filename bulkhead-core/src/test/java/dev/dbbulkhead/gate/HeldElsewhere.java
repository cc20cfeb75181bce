package dev.dbbulkhead.gate;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Permits held by virtual threads of their own, as running work holds them; closing lets the threads release
 * them and waits until they have.
 */
final class HeldElsewhere implements AutoCloseable {

    private final CountDownLatch finish = new CountDownLatch(1);
    private final CountDownLatch holding;
    private final List<Thread> holders = new ArrayList<>();

    private HeldElsewhere(int permits) {
        holding = new CountDownLatch(permits);
    }

    /** Returns once {@code permits} threads each hold a permit of {@code gate}. */
    static HeldElsewhere acquire(AdmissionGate gate, int permits) throws InterruptedException {
        HeldElsewhere held = start(gate, permits);
        held.awaitHolding();
        return held;
    }

    /** Starts {@code permits} threads that each acquire a permit of {@code gate}, waiting for it if need be. */
    static HeldElsewhere start(AdmissionGate gate, int permits) {
        HeldElsewhere held = new HeldElsewhere(permits);
        for (int i = 0; i < permits; i++) {
            held.holders.add(Thread.ofVirtual().start(() -> {
                try (Permit permit = gate.acquire()) {
                    held.holding.countDown();
                    held.finish.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        return held;
    }

    /** Returns once every thread holds its permit. */
    void awaitHolding() throws InterruptedException {
        holding.await();
    }

    @Override
    public void close() throws InterruptedException {
        finish.countDown();
        for (Thread holder : holders) {
            holder.join();
        }
    }
}
