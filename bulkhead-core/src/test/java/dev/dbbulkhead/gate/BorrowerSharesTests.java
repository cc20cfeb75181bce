package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which borrower a pool's free place goes to, on fixed counts. */
class BorrowerSharesTests {

    @Test
    void thePlaceGoesToTheBorrowerFurthestBelowItsShareByB() {
        Counts small = new Counts(1, 8, 0, 8);
        Counts large = new Counts(3, 8, 0, 8);

        assertThat(BorrowerShares.furthestBelowShare(new LendingPool.Borrower[] {small, large}, 8))
                .as("of 8 places, 2 are the small one's and 6 the large one's").isSameAs(large);

        Counts smallHoldingNone = new Counts(1, 8, 0, 8);
        Counts largeHoldingItsSix = new Counts(3, 8, 6, 8);
        assertThat(BorrowerShares.furthestBelowShare(
                new LendingPool.Borrower[] {smallHoldingNone, largeHoldingItsSix}, 2))
                .as("the large one holds its 6: the small one is 2 below its 2").isSameAs(smallHoldingNone);
    }

    @Test
    void aBorrowerAskingForLessThanItsShareLeavesTheRestToTheOthers() {
        Counts modest = new Counts(3, 8, 2, 0);
        Counts eager = new Counts(1, 8, 2, 8);

        assertThat(BorrowerShares.furthestBelowShare(new LendingPool.Borrower[] {modest, eager}, 4))
                .as("the larger one wants no more than its 2: the other 6 are the smaller one's").isSameAs(eager);
    }

    @Test
    void aLoneBorrowerWithWorkQueuedTakesThePlaceWhateverItsWeight() {
        Counts idle = new Counts(100, 8, 0, 0);
        Counts busy = new Counts(1, 8, 7, 3);

        assertThat(BorrowerShares.furthestBelowShare(new LendingPool.Borrower[] {idle, busy}, 1)).isSameAs(busy);
    }

    @Test
    void aBorrowerAtItsCeilingOrWithNothingQueuedIsNeverChosen() {
        Counts atCeiling = new Counts(3, 2, 2, 5);
        Counts nothingQueued = new Counts(1, 8, 0, 0);

        assertThat(BorrowerShares.furthestBelowShare(new LendingPool.Borrower[] {atCeiling, nothingQueued}, 4))
                .isNull();
        assertThat(BorrowerShares.mayTakeOne(atCeiling, atCeiling.borrowed())).isFalse();
        assertThat(BorrowerShares.mayTakeOne(nothingQueued, 0)).isFalse();
    }

    @Test
    void aBorrowerOverItsShareStillTakesAPlaceNobodyElseWants() {
        Counts over = new Counts(1, 8, 6, 2);
        Counts satisfied = new Counts(3, 8, 2, 0);

        assertThat(BorrowerShares.furthestBelowShare(new LendingPool.Borrower[] {over, satisfied}, 1))
                .as("work-conserving: the place would otherwise stay idle").isSameAs(over);
    }

    /** Fixed counts of one borrower. */
    private static final class Counts implements LendingPool.Borrower {

        private final int weight;
        private final int ceiling;
        private final int borrowed;
        private final int queued;

        Counts(int weight, int ceiling, int borrowed, int queued) {
            this.weight = weight;
            this.ceiling = ceiling;
            this.borrowed = borrowed;
            this.queued = queued;
        }

        @Override
        public int weight() {
            return weight;
        }

        @Override
        public int ceiling() {
            return ceiling;
        }

        @Override
        public int borrowed() {
            return borrowed;
        }

        @Override
        public int queued() {
            return queued;
        }

        @Override
        public boolean runNextWaiterOnLentPlace() {
            throw new AssertionError("the policy takes nothing");
        }
    }
}
