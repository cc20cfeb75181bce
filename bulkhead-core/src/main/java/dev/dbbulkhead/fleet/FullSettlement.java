package dev.dbbulkhead.fleet;

import dev.dbbulkhead.fleet.FleetStatements.Row;
import dev.dbbulkhead.fleet.FleetStatements.Total;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A renewal settled in full, under the fleet's lock, inside the caller's transaction: it reads the server's clock
 * once, takes only the rows that agree with this member's configuration ({@link #disagreement}), fences every member
 * whose lease expired by that clock ({@link SessionFence}) unless a live member's sessions bear its name, settles the
 * member's grant against the rows left ({@link ShareSettlement}), holding back the grants of expired members whose
 * sessions are still open, writes it, and announces what changed for the fleet ({@link FleetAnnouncements}).
 */
final class FullSettlement {

    private final int budget;
    /** How long a renewal waits for the ended sessions of an expired member to be gone. */
    private final Duration fenceWait;
    /** Where the fleet's next total comes from; null when the fleet splits its budget. */
    private final @Nullable FleetTotals totals;
    /** How long a total lasts before a renewal asks for the next one. */
    private final Duration totalInterval;

    FullSettlement(int budget, Duration fenceWait, @Nullable FleetTotals totals, Duration totalInterval) {
        this.budget = budget;
        this.fenceWait = fenceWait;
        this.totals = totals;
        this.totalInterval = totalInterval;
    }

    /**
     * A member's last settlement: what it asked, the make-up of the fleet it was settled against, its lease.
     */
    record Settlement(LeaseRequest request, String makeUp, Lease lease) {

        /** Whether {@code next} asks what the settlement was for: the same weight, demand, lease ttl and session. */
        boolean asked(LeaseRequest next) {
            return next.weight() == request.weight() && next.demand() == request.demand()
                    && next.leaseTtl().equals(request.leaseTtl())
                    && Objects.equals(next.sessionName(), request.sessionName());
        }

        /** The lease as a keep-alive of {@code renewal} extends it: the same grants, the member's lease renewed now. */
        Lease keptAlive(LeaseRequest renewal) {
            List<FleetMemberState> members = new ArrayList<>();
            for (FleetMemberState member : lease.members()) {
                members.add(member.memberId().equals(renewal.memberId())
                        ? new FleetMemberState(member.memberId(), member.weight(), member.demand(), member.granted(),
                        member.target(), Duration.ZERO, renewal.leaseTtl())
                        : member);
            }
            return new Lease(lease.granted(), lease.target(), lease.budget(), lease.total(), members, List.of(),
                    List.of());
        }
    }

    /** Settles the member's renewal; the caller holds the transaction, which this locks the table in. */
    Settlement settle(Connection connection, FleetTable.Resolved resolvedTable, LeaseRequest request)
            throws SQLException {
        String table = resolvedTable.name();
        FleetStatements.lock(connection, table);
        List<Row> rows = new ArrayList<>();
        OffsetDateTime now = FleetStatements.readRows(connection, resolvedTable, rows);
        List<Row> live = new ArrayList<>();
        List<Row> expired = new ArrayList<>();
        List<Lease.Ignored> ignored = new ArrayList<>();
        for (Row row : rows) {
            String disagreement = disagreement(row, now, budget);
            if (disagreement != null) {
                ignored.add(new Lease.Ignored(row.memberId(), disagreement));
            } else if (row.expiresAt().isAfter(now)) {
                live.add(row);
            } else {
                expired.add(row);
            }
        }
        // The sessions of a live member, or of the renewing one, are never ended on the word of another row.
        Set<String> liveSessionNames = new HashSet<>();
        if (request.sessionName() != null) {
            liveSessionNames.add(request.sessionName());
        }
        live.forEach(row -> {
            if (row.sessionName() != null) {
                liveSessionNames.add(row.sessionName());
            }
        });
        List<Lease.Fenced> fenced = new ArrayList<>();
        int reserved = 0;
        boolean changesFleet = false;
        for (Row row : expired) {
            boolean own = row.memberId().equals(request.memberId());
            if (!own && row.sessionName() != null && liveSessionNames.contains(row.sessionName())) {
                ignored.add(new Lease.Ignored(row.memberId(), "its session name '" + row.sessionName()
                        + "' is a live member's"));
            } else if (fence(connection, table, row, fenced)) {
                changesFleet = true;
            } else {
                reserved += row.granted();
            }
        }
        int ownGranted = 0;
        boolean joins = true;
        List<ShareSettlement.Holder> others = new ArrayList<>();
        for (Row row : live) {
            if (row.memberId().equals(request.memberId())) {
                ownGranted = row.granted();
                joins = false;
                changesFleet |= row.weight() != request.weight() || row.demand() != request.demand()
                        || !Objects.equals(row.sessionName(), request.sessionName());
            } else {
                others.add(new ShareSettlement.Holder(row.memberId(), row.weight(), row.demand(), row.granted()));
            }
        }
        Total previousTotal = newestTotal(rows, ignored);
        Total total = total(previousTotal, others, request, ownGranted, now);
        changesFleet |= joins;
        boolean totalMoved = totals != null && (previousTotal == null || previousTotal.value() != total.value());
        ShareSettlement.Settled settled = ShareSettlement.settle(total.value(), others, request, ownGranted,
                reserved);
        OffsetDateTime expires = now.plus(request.leaseTtl());
        String makeUp = FleetStatements.write(connection, resolvedTable, request, settled.granted(), settled.target(),
                budget, now, expires, totals == null ? null : total);
        List<FleetMemberState> members = new ArrayList<>();
        for (Row row : live) {
            if (!row.memberId().equals(request.memberId())) {
                members.add(new FleetMemberState(row.memberId(), row.weight(), row.demand(), row.granted(),
                        row.target(), Duration.between(row.renewedAt(), now), Duration.between(now, row.expiresAt())));
            }
        }
        members.add(new FleetMemberState(request.memberId(), request.weight(), request.demand(), settled.granted(),
                settled.target(), Duration.ZERO, request.leaseTtl()));
        members.sort(Comparator.comparing(FleetMemberState::memberId));
        if (changesFleet) {
            FleetAnnouncements.announce(connection, resolvedTable.channel(), "");
        } else if (totalMoved) {
            // Members that rest follow it without renewing: each lowers its use to its new target at once, and
            // renews only when that target is more than its lease grants.
            FleetAnnouncements.announce(connection, resolvedTable.channel(),
                    FleetAnnouncements.totalAnnouncement(table, total.value()));
        }
        return new Settlement(request, makeUp,
                new Lease(settled.granted(), settled.target(), budget, total.value(), members, fenced, ignored));
    }

    /**
     * The fleet's total for this renewal: the budget when the fleet splits it; else {@code newest}, the newest total of
     * the rows taken, or the next one when that is due — older than the total's interval, or none yet — which is then
     * this renewal's to write. A total the source holds is written again with the new time, so that no other renewal
     * of the interval asks for it again.
     */
    private Total total(@Nullable Total newest, List<ShareSettlement.Holder> others, LeaseRequest request,
                        int ownGranted, OffsetDateTime now) {
        if (totals == null) {
            return new Total(budget, now);
        }
        if (newest != null && newest.at().isAfter(now.minus(totalInterval))) {
            return newest;
        }
        int current = newest == null ? budget : newest.value();
        long granted = ownGranted + others.stream().mapToLong(ShareSettlement.Holder::granted).sum();
        long demand = request.demand() + others.stream().mapToLong(ShareSettlement.Holder::demand).sum();
        FleetTotals.Fleet fleet = new FleetTotals.Fleet(current, budget, (int) Math.min(Integer.MAX_VALUE, granted),
                (int) Math.min(Integer.MAX_VALUE, demand));
        return new Total(nextOrHeld(totals, fleet), now);
    }

    /** The newest total of the rows taken, ignored ones apart; the first member id's among equally new ones. */
    static @Nullable Total newestTotal(List<Row> rows, List<Lease.Ignored> ignored) {
        Set<String> ignoredIds = new HashSet<>();
        ignored.forEach(row -> ignoredIds.add(row.memberId()));
        Total newest = null;
        String newestBy = "";
        for (Row row : rows) {
            Total written = row.total();
            if (written != null && !ignoredIds.contains(row.memberId()) && (newest == null
                    || written.at().isAfter(newest.at())
                    || written.at().isEqual(newest.at()) && row.memberId().compareTo(newestBy) < 0)) {
                newest = written;
                newestBy = row.memberId();
            }
        }
        return newest;
    }

    /** The source's next total, or the current one when it has none, fails, or gives one out of range. */
    static int nextOrHeld(FleetTotals totals, FleetTotals.Fleet fleet) {
        OptionalInt next;
        try {
            next = totals.next(fleet);
        } catch (RuntimeException failed) {
            // The source's own reporting says why; the fleet's leases must not fail with it.
            return fleet.total();
        }
        return next.isPresent() && next.getAsInt() >= 1 && next.getAsInt() <= fleet.budget() ? next.getAsInt()
                : fleet.total();
    }

    /**
     * Why {@code row} is not taken for a member of this fleet; null when it is. A member writes its rows with the
     * budget it was configured with, a weight and demand of at least 1, a grant within both, a lease no longer than
     * {@link FleetSettings#MAX_LEASE_TTL} and a session name of the member form or none.
     */
    static @Nullable String disagreement(Row row, OffsetDateTime now, int budget) {
        if (row.budget() != budget) {
            return "its budget " + row.budget() + " differs from this member's " + budget;
        }
        if (row.weight() < 1 || row.demand() < 1 || row.granted() < 0 || row.target() < 0
                || row.granted() > Math.min(row.demand(), budget) || row.target() > row.demand()) {
            return "its weight " + row.weight() + ", demand " + row.demand() + ", grant " + row.granted()
                    + " or target " + row.target() + " is out of range (weight and demand at least 1, grant and"
                    + " target from 0 to the demand, grant at most the budget " + budget + ")";
        }
        if (row.expiresAt().isAfter(now.plus(FleetSettings.MAX_LEASE_TTL))) {
            return "its lease expires at " + row.expiresAt() + ", further ahead than any member's lease ttl"
                    + " (at most " + FleetSettings.MAX_LEASE_TTL + ")";
        }
        if (row.sessionName() != null && !FleetSettings.isMemberSessionName(row.sessionName())) {
            return "its session name '" + row.sessionName() + "' is not of the member form '[<application> ]"
                    + "(db-bulkhead member <tag>)'";
        }
        Total total = row.total();
        if ((row.fleetTotal() == null) != (row.fleetTotalAt() == null)
                || total != null && (total.value() < 1 || total.value() > budget || total.at().isAfter(now))) {
            return "its fleet total " + row.fleetTotal() + " at " + row.fleetTotalAt() + " is out of range (from 1 to"
                    + " the budget " + budget + ", written by now, both or neither)";
        }
        return null;
    }

    /**
     * Ends the sessions of a member whose lease expired, then drops its row: from then on its share is free.
     *
     * @return false when some of its sessions are still listed by the server once the wait is over: its row stays,
     *         and its grant is held back from everyone until a later renewal finds them gone
     */
    private boolean fence(Connection connection, String table, Row expired, List<Lease.Fenced> fenced)
            throws SQLException {
        String sessionName = expired.sessionName();
        if (sessionName != null) {
            SessionFence.Outcome outcome = SessionFence.end(connection, sessionName, fenceWait);
            if (outcome.ended() + outcome.unending() > 0) {
                fenced.add(new Lease.Fenced(expired.memberId(), outcome.ended(), outcome.unending(),
                        outcome.stillOpen()));
            }
            if (outcome.stillOpen() > 0) {
                return false;
            }
        }
        FleetStatements.delete(connection, table, expired.memberId());
        return true;
    }
}
