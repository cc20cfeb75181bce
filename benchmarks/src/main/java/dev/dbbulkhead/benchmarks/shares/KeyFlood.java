package dev.dbbulkhead.benchmarks.shares;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.AdmissionRules;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.OperationClass;
import dev.dbbulkhead.gate.Permit;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A flood of distinct keys through one gate with fair shares, no database: each admission has a key never seen
 * before, while a few other keys hold places. Each new key finds a place free and never waits, and the gate's
 * scheduler keeps state only for flows that wait and a bounded number of idle ones: the flood must leave nothing
 * behind. Measures the heap after a full GC and the flows the gate remembers before and after, and the admission cost
 * per call in equal chunks of the flood.
 */
final class KeyFlood {

    static final int HOLDERS = 5;
    static final int CHUNKS = 10;

    private KeyFlood() {
    }

    /**
     * @param keys        distinct keys of the flood
     * @param warmUpKeys  distinct keys (of another prefix) admitted before the measurement, for the JIT
     * @param heapUsedBefore heap used after a full GC, before the flood (bytes)
     * @param heapUsedAfter  the same after it
     * @param flowsBefore the flows the gate remembered before the flood
     * @param flowsAfter  the same after it
     * @param nanosPerCall mean admission + release per call, per chunk of {@code keys / CHUNKS}
     * @param refused     admissions refused during the flood (expected: none, each new key is under its share)
     */
    record Result(int keys, int warmUpKeys, int keySlots, long heapUsedBefore, long heapUsedAfter,
                  long flowsBefore, long flowsAfter, double[] nanosPerCall, long refused) {

        long heapGrowth() {
            return heapUsedAfter - heapUsedBefore;
        }

        /**
         * The median chunk's cost per call in the flood's second half over the first half's: medians, so that one
         * chunk slowed by a collection or by another process on the machine does not decide it.
         */
        double costGrowth() {
            int half = nanosPerCall.length / 2;
            return median(Arrays.copyOfRange(nanosPerCall, half, nanosPerCall.length))
                    / median(Arrays.copyOfRange(nanosPerCall, 0, half));
        }

        private static double median(double[] values) {
            double[] sorted = values.clone();
            Arrays.sort(sorted);
            int middle = sorted.length / 2;
            return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        }
    }

    static Result run(int keys, int warmUpKeys) throws InterruptedException {
        AdmissionGate gate = new AdmissionGate("key-flood", GateConfig.builder().maxConcurrent(10).maxQueued(10)
                .admissionRules(AdmissionRules.builder().fairShares(true).build()).build());
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch holding = new CountDownLatch(HOLDERS);
        List<Thread> holders = new ArrayList<>();
        for (int h = 0; h < HOLDERS; h++) {
            String key = "holder-" + h;
            holders.add(Thread.ofPlatform().start(() -> hold(gate, key, holding, release)));
        }
        holding.await();
        long[] refused = new long[1];
        admitDistinct(gate, "warm-", warmUpKeys, refused);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long heapBefore = usedAfterGc(memory);
        long tableBefore = FlowsRemembered.count(gate);
        refused[0] = 0;
        int chunk = keys / CHUNKS;
        double[] nanosPerCall = new double[CHUNKS];
        for (int c = 0; c < CHUNKS; c++) {
            long start = System.nanoTime();
            admitDistinct(gate, "key-" + c + "-", chunk, refused);
            nanosPerCall[c] = (System.nanoTime() - start) / (double) chunk;
        }
        long heapAfter = usedAfterGc(memory);
        long tableAfter = FlowsRemembered.count(gate);
        release.countDown();
        for (Thread holder : holders) {
            holder.join();
        }
        return new Result(chunk * CHUNKS, warmUpKeys, gate.config().admissionRules().keySlots(), heapBefore,
                heapAfter, tableBefore, tableAfter, nanosPerCall, refused[0]);
    }

    private static void admitDistinct(AdmissionGate gate, String prefix, int count, long[] refused) {
        for (int k = 0; k < count; k++) {
            try (OperationClass.Scope scope = OperationClass.of(Criticality.DEFAULT, prefix + k).bind();
                 Permit permit = gate.acquire()) {
                // admitted and released at once
            } catch (BulkheadRejectedException refusal) {
                refused[0]++;
            }
        }
    }

    private static void hold(AdmissionGate gate, String key, CountDownLatch holding, CountDownLatch release) {
        try (OperationClass.Scope scope = OperationClass.of(Criticality.DEFAULT, key).bind();
             Permit permit = gate.acquire()) {
            holding.countDown();
            release.await();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            memory.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
