/**
 * Weighted shares with idle capacity going to others: the one idea behind every split of places in the product,
 * expressed once in {@link dev.dbbulkhead.share.WeightedShares}. Each claimant has a weight and a demand; nobody gets
 * more than it asks for, and what one leaves unused goes to the others in proportion to their weights — so a lone
 * claimant may use everything, and nobody is held back while something is free.
 *
 * <p>Three levels use it:
 * <ul>
 *   <li><b>fleet members</b> share the fleet's connection budget, each weighted by its configured weight, each asking
 *       for what its pool can use ({@link dev.dbbulkhead.fleet.ShareSettlement});</li>
 *   <li><b>workloads of a pool</b> lend their idle places, and the workloads that borrow them share those places
 *       weighted by their own B ({@link dev.dbbulkhead.gate.LendingPool});</li>
 *   <li><b>flows inside a workload</b> — the operations of one key — are served in fair-queuing order, each
 *       operation counting {@linkplain dev.dbbulkhead.share.WeightedShares#usePerOperation its use per unit of
 *       weight}, the least used flow first and the one furthest over its share the first to give way
 *       ({@link dev.dbbulkhead.gate.AdmissionRules}).</li>
 * </ul>
 */
@NullMarked
package dev.dbbulkhead.share;

import org.jspecify.annotations.NullMarked;
