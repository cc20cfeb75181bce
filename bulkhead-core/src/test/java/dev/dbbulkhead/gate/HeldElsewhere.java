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
    private final List<Thread> holders = new ArrayList<>();

    static HeldElsewhere acquire(AdmissionGate gate, int permits) throws InterruptedException {
        HeldElsewhere held = new HeldElsewhere();
        CountDownLatch holding = new CountDownLatch(permits);
        for (int i = 0; i < permits; i++) {
            held.holders.add(Thread.ofVirtual().start(() -> {
                try (Permit permit = gate.acquire()) {
                    holding.countDown();
                    held.finish.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        holding.await();
        return held;
    }

    @Override
    public void close() throws InterruptedException {
        finish.countDown();
        for (Thread holder : holders) {
            holder.join();
        }
    }
}
