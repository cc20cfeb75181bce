package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.testing.Await;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet of more than five members on a real PostgreSQL, each with a session and a scheduler of its own, judged from
 * the lease table: its settled members keep leases as many lease ttls long as there are members, and a member that
 * dies without leaving has its share given to the others once that longer lease has expired — announced, so that
 * every survivor grows without waiting for its own next renewal.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class LargeFleetOnPostgresTests {

    private static final int BUDGET = 14;
    private static final Duration HEARTBEAT = Duration.ofMillis(100);
    private static final Duration LEASE_TTL = Duration.ofMillis(200);

    private final TestDatabase database = PostgresFixture.freshSchema();
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final List<ScheduledExecutorService> schedulers = new ArrayList<>();
    private final List<FleetMember> members = new ArrayList<>();

    @AfterEach
    void close() {
        schedulers.forEach(ScheduledExecutorService::shutdownNow);
        pools.forEach(HikariDataSource::close);
    }

    @Test
    void sevenMembersRestOnLeasesSevenTtlsLongAndADeadOnesShareReachesTheOthersOnceItsLeaseExpired() {
        for (int i = 0; i < 7; i++) {
            members.add(start("m" + i));
        }
        Await.until("a fair split of 2 each among 7", () -> members.stream().allMatch(member -> {
            FleetMember.Snapshot snapshot = member.snapshot();
            return snapshot.members().size() == 7 && snapshot.granted() == 2 && snapshot.target() == 2;
        }));
        Await.until("every lease seven ttls long", () -> leaseLengths().equals(List.of(
                LEASE_TTL.multipliedBy(7).toMillis())));

        // Killed: its scheduler stops, it never says goodbye.
        schedulers.get(6).shutdownNow();
        List<FleetMember> survivors = members.subList(0, 6);

        Await.until("the survivors split the whole budget", () -> {
            assertThat(grantedInAll()).as("the grants never pass the budget").isLessThanOrEqualTo(BUDGET);
            return survivors.stream().allMatch(member -> {
                FleetMember.Snapshot snapshot = member.snapshot();
                return snapshot.members().size() == 6 && snapshot.granted() == snapshot.target()
                        && snapshot.granted() >= 2;
            }) && grantedInAll() == BUDGET;
        });
        Await.until("every lease six ttls long", () -> leaseLengths().equals(List.of(
                LEASE_TTL.multipliedBy(6).toMillis())));
    }

    @Test
    void sevenMembersFollowAMovedTotalWithinTheirGrantsWithoutRenewingAndRenewOnlyToGrowPastThem() {
        AtomicInteger total = new AtomicInteger(BUDGET);
        RecordingFleetLog log = new RecordingFleetLog();
        for (int i = 0; i < 7; i++) {
            HikariDataSource pool = database.pool(1);
            pools.add(pool);
            members.add(start("m" + i, new PostgresFleetCoordinator(pool, "fleet", BUDGET,
                    PostgresFleetCoordinator.DEFAULT_RENEWAL_LOCK_WAIT, PostgresFleetCoordinator.DEFAULT_RENEWAL_TIMEOUT,
                    fleet -> OptionalInt.of(total.get()), HEARTBEAT), log));
        }
        Await.until("a fair split of 2 each among 7, resting", () -> leaseLengths().equals(List.of(
                LEASE_TTL.multipliedBy(7).toMillis())) && members.stream().allMatch(member -> {
                    FleetMember.Snapshot snapshot = member.snapshot();
                    return snapshot.total() == BUDGET && snapshot.granted() == 2 && snapshot.target() == 2;
                }));

        total.set(7);

        // Only a member that follows the announced total, between two renewals of its own, says so.
        Await.until("a member lowers itself to its target of the new total without renewing", () -> log.lines.stream()
                .anyMatch(line -> line.endsWith(": 2 → 1 connections (the fleet's total moved to 7: target 1,"
                        + " granted 2 among 7 members)")));
        Await.until("every member uses its target of 1", () -> members.stream().allMatch(member ->
                member.snapshot().total() == 7 && member.connectionsAllowed() == 1));

        total.set(BUDGET);

        Await.until("every member grows back to 2, renewing where its grant fell to 1", () -> {
            assertThat(grantedInAll()).as("the grants never pass the budget").isLessThanOrEqualTo(BUDGET);
            return members.stream().allMatch(member -> {
                FleetMember.Snapshot snapshot = member.snapshot();
                return snapshot.total() == BUDGET && snapshot.granted() == 2 && snapshot.applied() == 2;
            });
        });
    }

    @Test
    void aNewcomerToAFullBudgetWaitsForTheOthersToGiveBackBeforeItUsesItsFloor() {
        members.add(start("m0"));
        members.add(start("m1"));
        Await.until("two members hold the whole budget", () -> members.stream()
                .allMatch(member -> member.snapshot().granted() == BUDGET / 2) && grantedInAll() == BUDGET);
        HikariDataSource pool = database.pool(1);
        pools.add(pool);
        RecordingFleetLog log = new RecordingFleetLog();
        FleetMember newcomer = member("m2", new PostgresFleetCoordinator(pool, "fleet", BUDGET), log);

        // The wait is only a guard against a hang: the others give back at their next heartbeat.
        assertThat(newcomer.startWithinBudget(Duration.ofMinutes(1))).isTrue();

        assertThat(log.lines).anyMatch(line -> line.startsWith("INFO Fleet member m2 waits for room for its floor of 1"
                + " (granted 0 of budget 14 among 3 members)"));
        int newcomerGranted = newcomer.snapshot().granted();
        assertThat(newcomerGranted).as("granted its floor at least before it uses it").isGreaterThanOrEqualTo(1);
        assertThat(grantedInAll()).as("the newcomer's floor within the budget").isLessThanOrEqualTo(BUDGET);
    }

    private FleetMember start(String id) {
        HikariDataSource pool = database.pool(1);
        pools.add(pool);
        return start(id, new PostgresFleetCoordinator(pool, "fleet", BUDGET), FleetLog.systemLogger());
    }

    private FleetMember start(String id, FleetCoordinator coordinator, FleetLog log) {
        FleetMember member = member(id, coordinator, log);
        member.start();
        return member;
    }

    /** A member on a scheduler of its own, not started. */
    private FleetMember member(String id, FleetCoordinator coordinator, FleetLog log) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        schedulers.add(scheduler);
        return new FleetMember(coordinator, new FleetSettings(id, 1, 10, 1, HEARTBEAT, LEASE_TTL, null),
                List.of(connections -> true), scheduler, log);
    }

    /** The distinct lengths of the table's leases, in milliseconds. */
    private List<Long> leaseLengths() {
        return query("SELECT DISTINCT round(extract(epoch FROM lease_expires_at - renewed_at) * 1000)::bigint"
                + " FROM fleet");
    }

    private int grantedInAll() {
        return query("SELECT coalesce(sum(granted), 0)::bigint FROM fleet").get(0).intValue();
    }

    private List<Long> query(String sql) {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            List<Long> values = new ArrayList<>();
            while (rows.next()) {
                values.add(rows.getLong(1));
            }
            return values;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
