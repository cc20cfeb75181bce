package dev.dbbulkhead.gate;

import dev.dbbulkhead.share.WeightedShares;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Which borrower of a {@link LendingPool} a free place goes to: the one furthest below its weighted share
 * ({@link WeightedShares#split}) of the places borrowed and free, among those below their ceiling with work queued.
 * Each weighs its B in force and claims what it borrows and has queued, up to its ceiling. Pure policy: it reads the
 * borrowers' counts once each and takes nothing.
 */
final class BorrowerShares {

    private BorrowerShares() {
    }

    /** Whether {@code borrower}, borrowing {@code borrowed} places, is below its ceiling with work queued. */
    static boolean mayTakeOne(LendingPool.Borrower borrower, int borrowed) {
        return borrowed < borrower.ceiling() && borrower.queued() > 0;
    }

    /**
     * @param candidates the pool's borrowers, in the order that breaks ties
     * @param free       places free on the ledger, at least 1
     * @return the borrower the place goes to; null when none may take one
     */
    static LendingPool.@Nullable Borrower furthestBelowShare(LendingPool.Borrower[] candidates, long free) {
        int[] borrowed = new int[candidates.length];
        int[] queued = new int[candidates.length];
        long total = free;
        List<WeightedShares.Claim> claims = new ArrayList<>(candidates.length);
        for (int i = 0; i < candidates.length; i++) {
            LendingPool.Borrower candidate = candidates[i];
            borrowed[i] = candidate.borrowed();
            // Below its ceiling only: a borrower at it claims what it holds, and takes nothing more.
            queued[i] = borrowed[i] < candidate.ceiling() ? Math.max(0, candidate.queued()) : 0;
            total += borrowed[i];
            claims.add(new WeightedShares.Claim(Math.max(1, candidate.weight()),
                    (int) Math.min(candidate.ceiling(), (long) borrowed[i] + queued[i])));
        }
        int[] shares = WeightedShares.split((int) Math.min(Integer.MAX_VALUE, total), claims);
        int chosen = -1;
        for (int i = 0; i < candidates.length; i++) {
            // The counts were read at different instants: one with work queued is chosen even at its share, so that a
            // free place never stays idle while a borrower below its ceiling has work queued.
            if (queued[i] > 0 && (chosen < 0 || shares[i] - borrowed[i] > shares[chosen] - borrowed[chosen])) {
                chosen = i;
            }
        }
        return chosen < 0 ? null : candidates[chosen];
    }
}
