package dev.dbbulkhead.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The one weighted share, at one instant (the split) and over time (the use per unit of weight). */
class WeightedSharesTests {

    @Test
    void twoClaimantsOfWeightsOneAndThreeWantingMoreThanThereIsGetTwoAndSixOfEight() {
        assertThat(WeightedShares.split(8, List.of(new WeightedShares.Claim(1, 8), new WeightedShares.Claim(3, 7))))
                .containsExactly(2, 6);
    }

    @Test
    void whatOneDoesNotAskForGoesToTheOthers() {
        assertThat(WeightedShares.split(8, List.of(new WeightedShares.Claim(1, 8), new WeightedShares.Claim(3, 0))))
                .containsExactly(8, 0);
    }

    @Test
    void anOperationCountsLessTheLargerItsClaimantsWeight() {
        assertThat(WeightedShares.usePerOperation(1)).isEqualTo(WeightedShares.USE_SCALE);
        assertThat(WeightedShares.usePerOperation(4)).isEqualTo(WeightedShares.USE_SCALE / 4);
        assertThatIllegalArgumentException().isThrownBy(() -> WeightedShares.usePerOperation(0))
                .withMessage("weight must be between 1 and 2147483647, was 0");
    }

    @Test
    void aClaimantAheadOfTheSharedUseStartsWhereItsOwnUseReached() {
        long shared = 10 * WeightedShares.USE_SCALE;
        long ahead = shared + 150;
        assertThat(WeightedShares.nextStart(shared, ahead)).isEqualTo(ahead);
        assertThat(WeightedShares.startsAsNew(shared, ahead)).isFalse();
    }

    @Test
    void aClaimantBehindTheSharedUseSavesUpToTheLimitAndNoMore() {
        long shared = 10 * WeightedShares.USE_SCALE;
        long aLittleBehind = shared - WeightedShares.USE_SCALE;
        assertThat(WeightedShares.nextStart(shared, aLittleBehind)).as("what it left unused, saved")
                .isEqualTo(aLittleBehind);
        assertThat(WeightedShares.startsAsNew(shared, aLittleBehind)).isFalse();

        long farBehind = shared - 2 * WeightedShares.SAVED_USE_LIMIT;
        assertThat(WeightedShares.nextStart(shared, farBehind)).as("saved up to the limit")
                .isEqualTo(shared - WeightedShares.SAVED_USE_LIMIT);
        assertThat(WeightedShares.startsAsNew(shared, farBehind)).as("as one never seen").isTrue();
    }

    @Test
    void aClaimantNeverSeenStartsNoEarlierThanNothingUsed() {
        assertThat(WeightedShares.nextStart(WeightedShares.USE_SCALE, 0L)).isZero();
        assertThat(WeightedShares.startsAsNew(WeightedShares.USE_SCALE, 0L)).isTrue();
        assertThat(WeightedShares.startsAsNew(WeightedShares.USE_SCALE, 1L)).as("used something while all saved")
                .isFalse();
    }

    @Test
    void aClaimOutsideItsRangeIsRefusedNamingTheValueAndTheRange() {
        assertThatIllegalArgumentException().isThrownBy(() -> new WeightedShares.Claim(0, 1))
                .withMessage("weight must be between 1 and 2147483647, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> new WeightedShares.Claim(1, -1))
                .withMessage("demand must be between 0 and 2147483647, was -1");
        assertThatIllegalArgumentException().isThrownBy(() -> WeightedShares.split(-1, List.of()))
                .withMessage("total must be between 0 and 2147483647, was -1");
    }
}
