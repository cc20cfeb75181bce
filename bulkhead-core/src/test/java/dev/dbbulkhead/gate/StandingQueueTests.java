package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** CoDel's judgement alone, fed events and times by hand (target 5, interval 100, in nanoseconds). */
class StandingQueueTests {

    private static final long TARGET = 5;
    private static final long INTERVAL = 100;

    private final StandingQueue queue = new StandingQueue(TARGET, INTERVAL, 0);

    @Test
    void anIntervalThatBeganWithAnEmptyQueueNeverStands() {
        queue.advance(1);
        queue.filled(1);
        queue.granted(90);

        queue.advance(100);

        assertThat(queue.standing()).isFalse();
    }

    @Test
    void aWholeIntervalWhoseEverySojournExceededTheTargetStands() {
        stand();

        assertThat(queue.standing()).isTrue();
        assertThat(queue.overdue(TARGET)).as("at the target").isFalse();
        assertThat(queue.overdue(TARGET + 1)).as("past the target").isTrue();
    }

    @Test
    void anIntervalWithNoGrantAtAllButNeverEmptyStands() {
        queue.filled(0);
        queue.advance(100);
        queue.advance(200);

        assertThat(queue.standing()).isTrue();
    }

    @Test
    void oneSojournAtMostTheTargetKeepsAQueueFromStandingAtTheIntervalsEnd() {
        queue.filled(0);
        queue.advance(100);
        queue.granted(TARGET + 1);
        queue.granted(TARGET);

        queue.advance(200);

        assertThat(queue.standing()).isFalse();
    }

    @Test
    void aStandingQueueIsEndedNeitherByShortSojournsNorByAMomentsEmptinessOnlyByStayingEmptyForTheTarget() {
        stand();
        queue.granted(1);
        queue.advance(300);
        assertThat(queue.standing()).as("shedding shortens the oldest wait; the queue never emptied").isTrue();

        queue.emptied(310);
        queue.filled(310 + TARGET - 1);
        queue.advance(400);
        assertThat(queue.standing()).as("empty for less than the target").isTrue();

        queue.emptied(410);
        queue.filled(410 + TARGET);
        queue.advance(499);
        assertThat(queue.standing()).as("until the interval ends").isTrue();

        queue.advance(500);

        assertThat(queue.standing()).isFalse();
    }

    @Test
    void aStandingQueueThatStaysEmptyWithNoEventSinceStopsStandingAtTheIntervalsEnd() {
        stand();
        queue.emptied(210);

        queue.advance(300);

        assertThat(queue.standing()).isFalse();
        queue.advance(1_000);
        assertThat(queue.standing()).as("intervals that pass empty never stand").isFalse();
        assertThat(queue.overdue(Long.MAX_VALUE)).isFalse();
    }

    /** Interval [0, 100) began empty; interval [100, 200) saw only sojourns above the target; judged at 200. */
    private void stand() {
        queue.filled(0);
        queue.advance(100);
        queue.granted(TARGET + 1);
        queue.granted(40);
        queue.advance(200);
    }
}
