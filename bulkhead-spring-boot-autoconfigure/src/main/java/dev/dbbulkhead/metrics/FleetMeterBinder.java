package dev.dbbulkhead.metrics;

import dev.dbbulkhead.fleet.FleetMember;
import dev.dbbulkhead.fleet.support.FleetMembership;
import dev.dbbulkhead.limit.ConcurrencyCeiling;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.ToIntFunction;

/**
 * The {@code db.bulkhead.fleet.*} meters: each coordinated workload's cap on B from the fleet share (tagged
 * {@code workload}), and this instance's connections and the number of members (tagged {@code kind}; they belong to
 * the instance, not to one workload).
 */
public final class FleetMeterBinder implements MeterBinder {

    /** Gauge of the cap the fleet share puts on a coordinated workload's B, tagged {@code workload}. */
    public static final String SHARE = "db.bulkhead.fleet.share";
    /** Gauges of this instance's connections, tagged {@code kind}: {@code applied}, {@code granted}, {@code target}, {@code total}, {@code budget}. */
    public static final String CONNECTIONS = "db.bulkhead.fleet.connections";
    /** Gauge of the members of the fleet. */
    public static final String MEMBERS = "db.bulkhead.fleet.members";

    private final FleetMembership membership;

    /** @param membership this instance's membership of the fleet, whose ceilings and snapshots the gauges read */
    public FleetMeterBinder(FleetMembership membership) {
        this.membership = membership;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        membership.ceilings().forEach((workload, ceiling) -> Gauge.builder(SHARE, ceiling, FleetMeterBinder::cap)
                .tag("workload", workload)
                .description("The cap the fleet share puts on the workload's B (its configured B when uncapped)")
                .register(registry));
        connections(registry, "applied", FleetMember.Snapshot::applied);
        connections(registry, "granted", FleetMember.Snapshot::granted);
        connections(registry, "target", FleetMember.Snapshot::target);
        connections(registry, "total", FleetMember.Snapshot::total);
        connections(registry, "budget", FleetMember.Snapshot::budget);
        Gauge.builder(MEMBERS, membership, member -> member.snapshot().members().size())
                .description("Members of the fleet with an unexpired lease, at this instance's last renewal")
                .register(registry);
    }

    private void connections(MeterRegistry registry, String kind, ToIntFunction<FleetMember.Snapshot> value) {
        Gauge.builder(CONNECTIONS, membership, member -> value.applyAsInt(member.snapshot()))
                .tag("kind", kind)
                .description("This instance's connections in the fleet: applied (pool maximum and B now), granted"
                        + " (by its lease), target (its fair share), total (what the whole fleet may use now), budget (the"
                        + " most the whole fleet may use)")
                .register(registry);
    }

    private static double cap(ConcurrencyCeiling ceiling) {
        int cap = ceiling.ceiling();
        return cap == ConcurrencyCeiling.NONE ? ceiling.requested() : cap;
    }
}
