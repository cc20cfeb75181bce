package dev.dbbulkhead.benchmarks.pathcost;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The report's verdicts: the targets as the report computes them from two means. */
class PathCostRunTests {

    private static final double PLAIN_MICROS = 100.0;

    @Test
    void theGatedPathMeetsTheOverheadTargetUpToFivePercentMoreThanThePlainTransaction() {
        assertThat(PathCostRun.meetsOverheadTarget(PLAIN_MICROS * (1 + PathCostRun.MAX_OVERHEAD), PLAIN_MICROS))
                .isTrue();
        assertThat(PathCostRun.meetsOverheadTarget(Math.nextUp(PLAIN_MICROS * (1 + PathCostRun.MAX_OVERHEAD)),
                PLAIN_MICROS)).isFalse();
    }

    @Test
    void theGatedPathMeetsThePeerTargetWhenItCostsNoMoreThanResilience4j() {
        assertThat(PathCostRun.meetsPeerTarget(PLAIN_MICROS, PLAIN_MICROS)).isTrue();
        assertThat(PathCostRun.meetsPeerTarget(Math.nextUp(PLAIN_MICROS), PLAIN_MICROS)).isFalse();
    }
}
