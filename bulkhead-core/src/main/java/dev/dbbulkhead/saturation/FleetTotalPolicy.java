package dev.dbbulkhead.saturation;

import dev.dbbulkhead.fleet.FleetTotals;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The policy of a fleet's total that follows the database's saturation, read as {@link SaturationPolicy} reads one
 * sample, with the fleet's grants as the sessions that are its own. Stateless: the same sample and fleet always give
 * the same total.
 * <ul>
 *   <li><b>Lock contention</b>: lowered by {@value SaturationPolicy#LOCK_CUT}, or to what makes progress (what the
 *       fleet holds less the lock waiters, plus one) when that is lower.</li>
 *   <li><b>Saturated</b>: lowered by {@value SaturationPolicy#CPU_CUT}, whoever saturates the server: a fleet that
 *       scales out must not add load to it.</li>
 *   <li><b>Healthy</b>, and the members hold the whole total and could use more: raised by
 *       {@value SaturationPolicy#RAISE} (at least one), never past the budget.</li>
 *   <li><b>Busy</b>: held.</li>
 * </ul>
 * Lowering starts from what the fleet holds when that is less than its total: lowering a total nobody reaches relieves
 * nothing. Never below 1: each member keeps its own floor of connections, outside the leased budget, whatever the
 * total.
 */
public final class FleetTotalPolicy {

    private final SaturationPolicy policy;

    /** Reads samples as {@code policy} does. */
    public FleetTotalPolicy(SaturationPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /**
     * The fleet's next total from {@code sampler}'s current sample, read as the server's processors it was given say;
     * none while no sample is current (the sampler failing or hung), so that the fleet holds its last total.
     */
    public static FleetTotals following(DatabaseSampler sampler) {
        FleetTotalPolicy policy = new FleetTotalPolicy(new SaturationPolicy(sampler.settings().serverCpus()));
        return fleet -> sampler.current()
                .map(sample -> OptionalInt.of(policy.next(sample, fleet)))
                .orElse(OptionalInt.empty());
    }

    /** The fleet's next total after {@code signals}, from 1 to its budget. */
    public int next(DatabaseSignals signals, FleetTotals.Fleet fleet) {
        SaturationPolicy.Reading reading = policy.read(signals, fleet.granted());
        return switch (reading.state()) {
            case LOCK_CONTENTION -> lowered(fleet, SaturationPolicy.LOCK_CUT, reading.lockWaiters());
            case SATURATED -> lowered(fleet, SaturationPolicy.CPU_CUT, 0);
            case HEALTHY -> raised(fleet);
            case BUSY -> fleet.total();
        };
    }

    /** Lowered from what the fleet holds, at least 1 whatever it holds: each member keeps its floor anyway. */
    private static int lowered(FleetTotals.Fleet fleet, double cut, int lockWaiters) {
        return SaturationPolicy.lowered(fleet.total(), Math.max(1, fleet.granted()), cut, lockWaiters, 1);
    }

    private static int raised(FleetTotals.Fleet fleet) {
        boolean wantsMore = fleet.granted() >= fleet.total() && fleet.demand() > fleet.total();
        return wantsMore ? SaturationPolicy.raised(fleet.total(), fleet.budget()) : fleet.total();
    }
}
