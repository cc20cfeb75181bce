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
    void aClaimantAheadOfTheSharedUseIsOverItsShareAndOneBehindItEarnsNoCredit() {
        assertThat(WeightedShares.overShare(100, 250)).isEqualTo(150);
        assertThat(WeightedShares.nextStart(100, 250)).as("starts where its own use reached").isEqualTo(250);
        assertThat(WeightedShares.overShare(100, 40)).isZero();
        assertThat(WeightedShares.nextStart(100, 40)).as("idle time is not saved up").isEqualTo(100);
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
