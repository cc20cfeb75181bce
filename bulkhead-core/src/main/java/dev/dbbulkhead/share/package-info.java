/**
 * Weighted shares with idle capacity going to others: the one idea behind every split of places in the product,
 * expressed once in {@link dev.dbbulkhead.share.WeightedShares}. Each claimant has a weight and a demand; nobody gets
 * more than it asks for, and what one leaves unused goes to the others in proportion to their weights — so a lone
 * claimant may use everything, and nobody is held back while something is free.
 *
 * <p>The idea at each level:
 * <ul>
 *   <li><b>fleet members</b> share the fleet's connection budget, each weighted by its configured weight, each asking
 *       for what its pool can use ({@link dev.dbbulkhead.fleet.ShareSettlement}, with {@link
 *       dev.dbbulkhead.share.WeightedShares#split});</li>
 *   <li><b>workloads of a pool</b> each keep their own B, guaranteed, and lend what they leave idle to the workloads
 *       that borrow, each up to its own ceiling, in the order they ask ({@link dev.dbbulkhead.gate.LendingPool}): the
 *       weights are the B themselves, and an owner gets its places back first;</li>
 *   <li><b>flows inside a workload</b> — the operations of one key — are served in fair-queuing order, each
 *       operation counting {@linkplain dev.dbbulkhead.share.WeightedShares#usePerOperation its use per unit of
 *       weight}, the least used flow first and the one furthest over its share the first to give way
 *       ({@link dev.dbbulkhead.gate.AdmissionRules}).</li>
 * </ul>
 */
@NullMarked
package dev.dbbulkhead.share;

import org.jspecify.annotations.NullMarked;
