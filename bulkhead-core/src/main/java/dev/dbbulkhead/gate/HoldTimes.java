package dev.dbbulkhead.gate;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntSupplier;

/**
 * How long one gate's recent operations with a deadline held their permits — what an operation of the workload
 * usually needs — kept as a sample of {@value #SAMPLES} hold times whose median is published every so often. An
 * operation with less time left than that median is refused before it can time out inside the database.
 *
 * <p>Cheap on the release path and free of shared counters: a release writes its hold time into a slot chosen at
 * random (so the sample favours recent operations without an index every release would contend on) and, one
 * release in {@value #SAMPLES}, sorts a copy of the sample to publish its median. Admissions read one volatile field.
 * Operations without a deadline are never recorded, so a workload that sets none pays nothing here.
 */
final class HoldTimes {

    static final int SAMPLES = 32;
    /** Below this many hold times recorded, no median is published: too few to say what an operation needs. */
    static final int MIN_SAMPLES = SAMPLES / 2;

    /** Hold times in nanoseconds, at least 1; 0 for a slot never written. */
    private final AtomicLongArray sample = new AtomicLongArray(SAMPLES);
    private final IntSupplier slots;
    /** The median of the sample when last published; 0 while too few hold times are known. */
    private volatile long medianNanos;

    HoldTimes() {
        this(() -> ThreadLocalRandom.current().nextInt(SAMPLES));
    }

    /** A sample whose slots {@code slots} chooses, from 0 to {@value #SAMPLES} − 1: the seam tests drive. */
    HoldTimes(IntSupplier slots) {
        this.slots = slots;
    }

    /** Records one operation's hold time; the release that lands in slot 0 publishes the median anew. */
    void record(long heldNanos) {
        int slot = slots.getAsInt();
        sample.set(slot, Math.max(1L, heldNanos));
        if (slot == 0) {
            publishMedian();
        }
    }

    /** What an operation usually needs, in nanoseconds; 0 while it is not known. */
    long medianNanos() {
        return medianNanos;
    }

    private void publishMedian() {
        long[] known = new long[SAMPLES];
        int count = 0;
        for (int i = 0; i < SAMPLES; i++) {
            long held = sample.get(i);
            if (held > 0) {
                known[count++] = held;
            }
        }
        if (count < MIN_SAMPLES) {
            return;
        }
        Arrays.sort(known, 0, count);
        medianNanos = known[count / 2];
    }
}
