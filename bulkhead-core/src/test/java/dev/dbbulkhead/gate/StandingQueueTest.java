package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** CoDel's judgement alone, fed events and times by hand (target 5, interval 100, in nanoseconds). */
class StandingQueueTest {

    private static final long TARGET = 5;
    private static final long INTERVAL = 100;

    private final StandingQueue queue = new StandingQueue(TARGET, INTERVAL, 0);

    @Test
    void anIntervalThatBeganWithAnEmptyQueueNeverStands() {
        queue.advance(1);
        queue.filled();
        queue.granted(90);

        queue.advance(100);

        assertThat(queue.standing()).isFalse();
    }

    @Test
    void aWholeIntervalWhoseEverySojournExceededTheTargetStands() {
        stand();

        assertThat(queue.standing()).isTrue();
        assertThat(queue.overdue(2 * TARGET)).as("at twice the target").isFalse();
        assertThat(queue.overdue(2 * TARGET + 1)).as("past twice the target").isTrue();
    }

    @Test
    void anIntervalWithNoGrantAtAllButNeverEmptyStands() {
        queue.filled();
        queue.advance(100);
        queue.advance(200);

        assertThat(queue.standing()).isTrue();
    }

    @Test
    void oneSojournAtMostTheTargetEndsTheStandingAtTheIntervalsEnd() {
        stand();
        queue.granted(50);
        queue.granted(TARGET);
        queue.advance(299);
        assertThat(queue.standing()).as("until the interval ends").isTrue();

        queue.advance(300);

        assertThat(queue.standing()).isFalse();
    }

    @Test
    void aQueueThatEmptiedEndsTheStandingAtTheIntervalsEnd() {
        stand();
        queue.emptied();
        queue.filled();
        queue.granted(50);

        queue.advance(300);

        assertThat(queue.standing()).isFalse();
    }

    @Test
    void intervalsThatPassWithTheQueueEmptyAndNoEventNeverStand() {
        stand();
        queue.emptied();

        queue.advance(1_000);

        assertThat(queue.standing()).isFalse();
        assertThat(queue.overdue(Long.MAX_VALUE)).isFalse();
    }

    @Test
    void anOverdueWaitNeverOverflows() {
        StandingQueue huge = new StandingQueue(Long.MAX_VALUE / 2 + 1, Long.MAX_VALUE / 2 + 1, 0);

        assertThat(huge.overdueAfterNanos()).isEqualTo(Long.MAX_VALUE);
    }

    /** Interval [0, 100) began empty; interval [100, 200) saw only sojourns above the target; judged at 200. */
    private void stand() {
        queue.filled();
        queue.advance(100);
        queue.granted(TARGET + 1);
        queue.granted(40);
        queue.advance(200);
    }
}
