package dev.dbbulkhead.saturation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.saturation.SaturationLimits.Confidence;
import dev.dbbulkhead.saturation.SaturationLimits.Governed;
import dev.dbbulkhead.saturation.SaturationLimits.Mode;
import dev.dbbulkhead.saturation.SaturationLimits.Recommendation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The B recommended over a window of samples, replayed second by second on the samples' own clock: one workload,
 * {@code reports}, running its B of 20 on a server of 4 processors, recommended at most 20.
 */
class RecommendedLimitTests {

    /**
     * Sessions on a processor at each second of a steady CPU-bound load, as its samples caught them: with 20 running,
     * each sample's share of the 4 processors reads 10, 3, 2, 4, 2, 10, 4, 10 — what a steady load showed from outside.
     */
    private static final int[] STEADY_BUSY = {8, 26, 40, 20, 40, 8, 20, 8};

    private final RecordingLogger log = new RecordingLogger();
    private final AtomicInteger running = new AtomicInteger(20);
    private final AtomicBoolean queued = new AtomicBoolean(true);
    private final SaturationLimits limits = new SaturationLimits(new SaturationPolicy(4), List.of(
            new Governed("reports", Mode.RECOMMEND, Criticality.DEFAULT, 1, () -> 20, running::get, queued::get,
                    cap -> {
                        throw new AssertionError("a recommendation is applied to nothing, was " + cap);
                    })), log);
    private int second;

    @Test
    void underASteadyLoadWhoseSamplesPointFromTwoToTenTheRecommendedBStaysWithinOneForThreeMinutes() {
        List<Integer> shown = new ArrayList<>();
        for (int sample = 0; sample < 180; sample++) {
            sampleNext(STEADY_BUSY[sample % STEADY_BUSY.length]);
            shown.add(cap());
        }

        IntSummaryStatistics afterTheFirstFigure = shown.subList(RecommendationWindow.LEAST_SAMPLES - 1, shown.size())
                .stream().mapToInt(Integer::intValue).summaryStatistics();
        assertThat(afterTheFirstFigure.getMax() - afterTheFirstFigure.getMin())
                .as("the B shown from its first figure on, second by second: %s", shown).isLessThanOrEqualTo(1);
        assertThat(afterTheFirstFigure.getMin()).as("within the middle of what the samples point to").isBetween(2, 4);
        assertThat(new HashSet<>(shown.subList(RecommendationWindow.SURE_SAMPLES - 1, shown.size())))
                .as("once the window is sure, one figure").hasSize(1);
        assertThat(recommendationLines()).as("written as it appeared and each time it moved")
                .hasSize(changes(shown.subList(RecommendationWindow.LEAST_SAMPLES - 1, shown.size())) + 1);
    }

    @Test
    void theStartUpOfALoadDoesNotPinTheRecommendedBOnceTheWindowIsSure() {
        // The first five samples catch every operation on a processor at once; then the load settles, its samples
        // pointing to 2 to 4 but for one in eight, which catches most between two statements.
        int[] steady = {40, 26, 20, 26, 40, 6, 26, 20};
        List<Integer> shown = new ArrayList<>();
        for (int sample = 0; sample < 5; sample++) {
            sampleNext(6);
            shown.add(cap());
        }
        for (int sample = 0; sample < 120; sample++) {
            sampleNext(steady[sample % steady.length]);
            shown.add(cap());
        }

        assertThat(shown.get(RecommendationWindow.LEAST_SAMPLES - 1)).as("the start-up's figure").isEqualTo(13);
        assertThat(shown.subList(RecommendationWindow.SURE_SAMPLES - 1, shown.size()))
                .as("from the twentieth sample on, second by second: %s", shown).allMatch(b -> b >= 2 && b <= 4);
    }

    @Test
    void aRealChangeOfTheLoadMovesTheRecommendedBWithinTheWindowAndItIsWrittenWithItsSupport() {
        // Two minutes at 8 to 11 processors' worth of sessions: each sample points to 7 to 10; then a heavier
        // statement takes the processors twice as long, and the samples point to 3 to 5.
        int[] before = {8, 10, 9, 11};
        int[] after = {16, 20, 18, 26};
        for (int sample = 0; sample < 120; sample++) {
            sampleNext(before[sample % before.length]);
        }
        int changedAt = second;
        List<Integer> movedAt = new ArrayList<>();
        List<Integer> shown = new ArrayList<>(List.of(cap()));
        for (int sample = 0; sample < 120; sample++) {
            sampleNext(after[sample % after.length]);
            if (cap() != shown.getLast()) {
                shown.add(cap());
                movedAt.add(second - changedAt);
            }
        }

        assertThat(shown).as("from the old load's median to the median of a window mostly new, then to the new"
                + " load's: never back").containsExactly(8, 5, 4);
        assertThat(movedAt.getFirst()).as("seconds until it first moved, for a window of 60").isBetween(1, 60);
        assertThat(movedAt.getLast()).as("settled within the window").isBetween(1, 60);
        assertThat(recommendationLines()).as("its first figure and its moves").hasSize(3);
        assertThat(recommendationLines().get(2)).isEqualTo("info: The B recommended for workload 'reports' is now 4"
                + " (was 5): the median of the B that 60 samples over the last 1m pointed to, their middle half 3 to"
                + " 4; the database saturated at 60 of them; confidence high");
    }

    @Test
    void afterTheLoadTheRecommendedBStaysTheOneItsSamplesSupportedAndAFewNewSamplesDoNotMoveIt() {
        for (int sample = 0; sample < 60; sample++) {
            sampleNext(STEADY_BUSY[sample % STEADY_BUSY.length]);
        }
        Recommendation underLoad = limits.recommendation("reports").orElseThrow();

        running.set(0);
        queued.set(false);
        for (int sample = 0; sample < 600; sample++) {
            sampleNext(1);
        }
        assertThat(limits.recommendation("reports")).as("ten idle minutes: no evidence, nothing changes")
                .contains(underLoad);
        running.set(20);
        for (int sample = 0; sample < RecommendationWindow.LEAST_SAMPLES - 1; sample++) {
            sampleNext(80);
        }
        assertThat(cap()).as("four samples are no window").isEqualTo(underLoad.limit());
        assertThat(limits.recommendation("reports")).contains(underLoad);
    }

    @Test
    void itIsSureOnlyWithEnoughSamplesAtWhichTheDatabaseSaturated() {
        assertThat(limits.recommendation("reports")).as("before any sample").isEmpty();
        assertThat(cap()).as("before a recommendation: the most it may recommend").isEqualTo(20);
        for (int sample = 0; sample < RecommendationWindow.LEAST_SAMPLES; sample++) {
            sampleNext(20);
        }
        assertThat(limits.recommendation("reports")).contains(new Recommendation(4, Confidence.LOW, 5, 5, 4, 4,
                SaturationLimits.DEFAULT_RECOMMENDATION_WINDOW));
        for (int sample = RecommendationWindow.LEAST_SAMPLES; sample < RecommendationWindow.SURE_SAMPLES; sample++) {
            sampleNext(20);
        }
        assertThat(limits.recommendation("reports").orElseThrow().confidence()).isEqualTo(Confidence.HIGH);

        // Healthy and queueing: the server had room at every sample; what it recommends is a floor, not a measure.
        SaturationLimits healthy = new SaturationLimits(new SaturationPolicy(4), List.of(new Governed("reports",
                Mode.RECOMMEND, Criticality.DEFAULT, 1, () -> 20, () -> 2, () -> true, cap -> { })), log);
        for (int sample = 0; sample < 30; sample++) {
            healthy.onSample(signalsAt(sample, 2));
        }
        assertThat(healthy.recommendation("reports").orElseThrow()).extracting(Recommendation::confidence,
                Recommendation::saturatedSamples, Recommendation::samples).containsExactly(Confidence.LOW, 0, 30);
    }

    @Test
    void whenItsLineIsWrittenTheNewRecommendationIsAlreadyTheCapEveryReaderSees() {
        List<String> capsWhenWritten = new ArrayList<>();
        SaturationLimits[] watched = new SaturationLimits[1];
        RecordingLogger readingTheCap = new RecordingLogger(message -> {
            if (message.contains("recommended for workload")) {
                capsWhenWritten.add(message.substring(0, message.indexOf(':')) + " while the cap read "
                        + watched[0].limit("reports").orElseThrow().cap() + " and the recommendation "
                        + watched[0].recommendation("reports").orElseThrow().limit());
            }
        });
        watched[0] = new SaturationLimits(new SaturationPolicy(4), List.of(new Governed("reports", Mode.RECOMMEND,
                Criticality.DEFAULT, 1, () -> 20, () -> 20, () -> true, cap -> { })), readingTheCap);
        for (int sample = 0; sample < RecommendationWindow.LEAST_SAMPLES; sample++) {
            watched[0].onSample(signalsAt(sample, 20));
        }

        assertThat(capsWhenWritten).containsExactly("The B recommended for workload 'reports' is now 4 while the cap"
                + " read 4 and the recommendation 4");
    }

    @Test
    void aWindowOutOfRangeIsRefusedNamingTheValueAndTheRange() {
        assertThatThrownBy(() -> new SaturationLimits(new SaturationPolicy(4), List.of(), log, Duration.ofSeconds(9)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the recommendation window must be between 10s and 1h, was PT9S");
        assertThatThrownBy(() -> new SaturationLimits(new SaturationPolicy(4), List.of(), log, Duration.ofMinutes(61)))
                .hasMessage("the recommendation window must be between 10s and 1h, was PT1H1M");
    }

    private static int changes(List<Integer> shown) {
        int changes = 0;
        for (int i = 1; i < shown.size(); i++) {
            changes += shown.get(i).equals(shown.get(i - 1)) ? 0 : 1;
        }
        return changes;
    }

    /** One sample, a second after the last, with {@code onProcessors} sessions on the server's processors. */
    private void sampleNext(int onProcessors) {
        limits.onSample(signalsAt(second++, onProcessors));
    }

    private int cap() {
        return limits.limit("reports").orElseThrow().cap();
    }

    private List<String> recommendationLines() {
        return log.lines().stream().filter(line -> line.contains("recommended for workload")).toList();
    }

    private static DatabaseSignals signalsAt(int second, int onProcessors) {
        return new DatabaseSignals(second * 1_000_000_000L, Map.of(WaitClass.CPU, onProcessors), null, 0, 0, 0, null,
                Duration.ofMillis(1));
    }
}
