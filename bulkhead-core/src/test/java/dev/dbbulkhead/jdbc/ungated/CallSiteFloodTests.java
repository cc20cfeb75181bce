package dev.dbbulkhead.jdbc.ungated;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A detector under a flood of distinct call sites from many threads at once: its memory stays bounded, every borrow
 * is counted exactly once, and each kept site is told once.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class CallSiteFloodTests {

    private static final int THREADS = 8;
    private static final int SITES_PER_THREAD = 2_000;
    private static final int CAP = 100;

    private static CallSite site(int thread, int index) {
        return new CallSite("com.example.Generated" + thread, "call" + index, "Generated.java", index, true);
    }

    @Test
    void distinctCallSitesPastTheCapAreCountedTogetherAndEveryBorrowIsCountedOnce() throws Exception {
        RecordedSightings sightings = new RecordedSightings();
        UngatedConnectionDetector detector = new UngatedConnectionDetector("main",
                new DetectionSettings(CallerRules.defaults(), false, CAP, "advice"), sightings);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    for (int i = 0; i < SITES_PER_THREAD; i++) {
                        // Every thread also borrows from one shared site, racing the others to its first sighting.
                        detector.record(new CallerRules.Verdict(null, site(thread, i)));
                        detector.record(new CallerRules.Verdict(null, site(-1, 0)));
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }

        assertThat(failure.get()).isNull();
        UngatedConnectionReport report = detector.report();
        long borrows = 2L * THREADS * SITES_PER_THREAD;
        assertThat(report.connections()).isEqualTo(borrows);
        assertThat(report.callSites()).hasSize(CAP);
        assertThat(report.callSites().stream().mapToLong(UngatedConnectionReport.CallSiteCount::connections).sum()
                + report.otherCallSites()).as("each borrow in one site or among the others").isEqualTo(borrows);
        assertThat(sightings.newSites).as("each kept site told once").hasSize(CAP).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(report.callSites().stream()
                        .map(UngatedConnectionReport.CallSiteCount::site).toList());
        assertThat(sightings.full).as("the cap told once").hasValue(1);
    }

    @Test
    void aSiteKeptBeforeTheCapWasReachedGoesOnBeingCountedAfterIt() throws Exception {
        UngatedConnectionDetector detector = new UngatedConnectionDetector("main",
                new DetectionSettings(CallerRules.defaults(), false, 2, "advice"), UngatedConnectionListener.NONE);

        for (int i = 0; i < 5; i++) {
            detector.record(new CallerRules.Verdict(null, site(0, i)));
        }
        detector.record(new CallerRules.Verdict(null, site(0, 0)));

        UngatedConnectionReport report = detector.report();
        assertThat(report.callSites()).extracting(UngatedConnectionReport.CallSiteCount::connections)
                .containsExactly(2L, 1L);
        assertThat(report.otherCallSites()).isEqualTo(3);
    }
}
