package dev.dbbulkhead.gate;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Every place of a gate, each held by a platform thread of its own until closed: with no queue, every admission
 * meanwhile is refused at once. The holders are threads apart from the test's, so that the test's own thread is
 * admitted by nobody.
 */
public final class HeldPlaces implements AutoCloseable {

    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Thread> holders = new ArrayList<>();

    private HeldPlaces() {
    }

    /** Takes every place of {@code gate}; returns once each is held. */
    public static HeldPlaces of(AdmissionGate gate) throws InterruptedException {
        HeldPlaces places = new HeldPlaces();
        int count = gate.config().maxConcurrent();
        CountDownLatch held = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            places.holders.add(Thread.ofPlatform().start(() -> {
                try (Permit permit = gate.acquire()) {
                    held.countDown();
                    places.release.await();
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        held.await();
        return places;
    }

    /** Lets every holder give its place back, and waits until all have. */
    @Override
    public void close() throws InterruptedException {
        release.countDown();
        for (Thread holder : holders) {
            holder.join();
        }
    }
}
