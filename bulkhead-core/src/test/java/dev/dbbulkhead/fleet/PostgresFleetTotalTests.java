package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet whose total follows a source (the database's signals in the starter), on a real PostgreSQL. The total's
 * interval is either far longer than the test, so that only the first renewal finds it due, or a microsecond, so that
 * every renewal does: no assertion depends on a clock.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class PostgresFleetTotalTests {

    private static final Duration LONG_TTL = Duration.ofMinutes(5);
    private static final Duration LOCK_WAIT = Duration.ofMillis(100);
    private static final Duration RENEWAL_TIMEOUT = Duration.ofMillis(400);
    private static final Duration NEVER_DUE_AGAIN = Duration.ofHours(1);
    private static final Duration ALWAYS_DUE = Duration.ofNanos(1_000);

    private final TestDatabase database = PostgresFixture.freshSchema();
    private final HikariDataSource coordinatorPool = database.pool(3);
    private final List<Connection> opened = new ArrayList<>();
    private final AtomicInteger asked = new AtomicInteger();
    private final AtomicInteger nextTotal = new AtomicInteger();

    @AfterEach
    void close() throws SQLException {
        for (Connection connection : opened) {
            connection.close();
        }
        coordinatorPool.close();
    }

    @Test
    void everyMemberSplitsTheTotalThatTheFirstRenewalOfTheIntervalAskedFor() {
        nextTotal.set(6);
        PostgresFleetCoordinator a = following(NEVER_DUE_AGAIN);
        PostgresFleetCoordinator b = following(NEVER_DUE_AGAIN);

        Lease first = a.renew(request("a", 0));
        assertThat(first.total()).isEqualTo(6);
        assertThat(first.budget()).isEqualTo(12);
        assertThat(first.granted()).as("alone, it grows to the total, not the budget").isEqualTo(6);

        nextTotal.set(10);
        Lease joined = b.renew(request("b", 0));
        assertThat(joined.total()).as("the same total, not asked again within its interval").isEqualTo(6);
        assertThat(joined.target()).isEqualTo(3);
        assertThat(joined.granted()).as("a still holds the whole total").isZero();
        assertThat(a.renew(request("a", 6)).granted()).as("kept while in use").isEqualTo(6);
        assertThat(a.renew(request("a", 3)).granted()).isEqualTo(3);
        assertThat(b.renew(request("b", 0)).granted()).isEqualTo(3);

        assertThat(asked).hasValue(1);
        assertThat(queryInt("SELECT count(DISTINCT fleet_total) FROM fleet")).isEqualTo(1);
        assertThat(queryInt("SELECT max(fleet_total) FROM fleet")).isEqualTo(6);
    }

    @Test
    void aLowerTotalLowersTheTargetAtOnceAndTheGrantOnlyAsTheMemberLetsGo() {
        nextTotal.set(12);
        PostgresFleetCoordinator coordinator = following(ALWAYS_DUE);
        coordinator.renew(request("a", 0));
        assertThat(coordinator.renew(request("a", 0)).granted()).isEqualTo(12);

        nextTotal.set(4);
        Lease lowered = coordinator.renew(request("a", 12));
        assertThat(lowered.total()).isEqualTo(4);
        assertThat(lowered.target()).isEqualTo(4);
        assertThat(lowered.granted()).as("work admitted under the larger grant drains first").isEqualTo(12);
        assertThat(coordinator.renew(request("a", 4)).granted()).isEqualTo(4);

        nextTotal.set(8);
        Lease raised = coordinator.renew(request("a", 4));
        assertThat(raised.total()).isEqualTo(8);
        assertThat(raised.granted()).isEqualTo(8);
    }

    @Test
    void aNewMemberGrowsOnlyIntoWhatTheTotalLeavesFreeSoTheGrantsNeverPassIt() {
        nextTotal.set(12);
        PostgresFleetCoordinator coordinator = following(ALWAYS_DUE);
        coordinator.renew(request("a", 0));
        coordinator.renew(request("a", 12));
        nextTotal.set(6);

        Lease joined = coordinator.renew(request("b", 0));
        assertThat(joined.total()).isEqualTo(6);
        assertThat(joined.granted()).as("a holds 12 of a total of 6: nothing is free").isZero();
        assertThat(coordinator.renew(request("a", 3)).granted()).isEqualTo(3);
        assertThat(coordinator.renew(request("b", 0)).granted()).isEqualTo(3);
        assertThat(queryInt("SELECT sum(granted) FROM fleet")).isEqualTo(6);
    }

    @Test
    void aSourceWithNothingCurrentOrThatFailsOrAnswersOutOfRangeHoldsTheLastTotal() {
        nextTotal.set(5);
        AtomicInteger answer = new AtomicInteger();
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12, LOCK_WAIT,
                RENEWAL_TIMEOUT, fleet -> switch (answer.getAndIncrement()) {
                    case 0 -> OptionalInt.of(5);
                    case 1 -> OptionalInt.empty();
                    case 2 -> throw new IllegalStateException("the sampler's query hung");
                    default -> OptionalInt.of(13);
                }, ALWAYS_DUE);

        assertThat(coordinator.renew(request("a", 0)).total()).isEqualTo(5);
        assertThat(coordinator.renew(request("a", 5)).total()).as("nothing current").isEqualTo(5);
        assertThat(coordinator.renew(request("a", 5)).total()).as("the source failed").isEqualTo(5);
        assertThat(coordinator.renew(request("a", 5)).total()).as("past the budget").isEqualTo(5);
        assertThat(answer).as("asked at every due renewal").hasValue(4);
    }

    @Test
    void aRenewalWithinTheTotalsIntervalKeepsTheLeaseAliveWithoutTheLockAndOneDueSettlesUnderIt()
            throws SQLException {
        nextTotal.set(6);
        PostgresFleetCoordinator coordinator = following(NEVER_DUE_AGAIN);
        coordinator.renew(request("a", 0));
        Connection writer = writerHoldingTheTable();

        Lease kept = coordinator.renew(request("a", 6));
        assertThat(kept.total()).isEqualTo(6);
        assertThat(kept.granted()).isEqualTo(6);

        database.execute("UPDATE fleet SET fleet_total_at = clock_timestamp() - interval '2 hours'");
        assertThatThrownBy(() -> coordinator.renew(request("a", 6)))
                .as("a due total is set under the fleet's lock")
                .isInstanceOf(FleetUnavailableException.class)
                .hasMessageContaining("lock timeout");
        writer.rollback();
    }

    @Test
    void aRowWhoseTotalIsOutOfRangeOrWrittenAheadOfTheServersClockIsIgnored() {
        nextTotal.set(6);
        PostgresFleetCoordinator coordinator = following(NEVER_DUE_AGAIN);
        coordinator.renew(request("a", 0));
        insertRowWithTotal("past-the-budget", "13", "clock_timestamp()");
        insertRowWithTotal("ahead", "2", "clock_timestamp() + interval '100 years'");
        insertRowWithTotal("half", "2", "NULL");

        Lease lease = coordinator.renew(request("a", 6));

        assertThat(lease.total()).isEqualTo(6);
        assertThat(lease.ignored()).extracting(Lease.Ignored::memberId)
                .containsExactlyInAnyOrder("past-the-budget", "ahead", "half");
        assertThat(lease.ignored()).extracting(Lease.Ignored::reason)
                .allSatisfy(reason -> assertThat(reason).contains("fleet total"));
        assertThat(lease.members()).extracting(FleetMemberState::memberId).containsExactly("a");
    }

    @Test
    void aTableOfAFleetThatSplitItsBudgetGetsTheTotalsColumnsAndStillServesMembersThatSplitTheirs() {
        PostgresFleetCoordinator splitting = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12, LOCK_WAIT,
                RENEWAL_TIMEOUT);
        assertThat(splitting.renew(request("a", 0)).total()).isEqualTo(12);
        assertThat(queryInt("SELECT count(*) FROM information_schema.columns WHERE table_schema = '"
                + database.schema() + "' AND table_name = 'fleet' AND column_name LIKE 'fleet_total%'")).isZero();
        nextTotal.set(8);

        Lease following = following(NEVER_DUE_AGAIN).renew(request("b", 0));
        assertThat(following.total()).isEqualTo(8);
        assertThat(queryInt("SELECT count(*) FROM information_schema.columns WHERE table_schema = '"
                + database.schema() + "' AND table_name = 'fleet' AND column_name LIKE 'fleet_total%'")).isEqualTo(2);
        Lease split = new PostgresFleetCoordinator(coordinatorPool, "fleet", 12, LOCK_WAIT, RENEWAL_TIMEOUT)
                .renew(request("a", 12));
        assertThat(split.total()).as("a member that splits its budget").isEqualTo(12);
    }

    private PostgresFleetCoordinator following(Duration interval) {
        return new PostgresFleetCoordinator(coordinatorPool, "fleet", 12, LOCK_WAIT, RENEWAL_TIMEOUT, fleet -> {
            asked.incrementAndGet();
            return OptionalInt.of(nextTotal.get());
        }, interval);
    }

    private static LeaseRequest request(String member, int inUse) {
        return new LeaseRequest(member, 1, 12, inUse, LONG_TTL, null);
    }

    private void insertRowWithTotal(String member, String total, String totalAt) {
        database.execute("INSERT INTO fleet (member_id, weight, demand, granted, target, budget, joined_at,"
                + " renewed_at, lease_expires_at, fleet_total, fleet_total_at) VALUES ('" + member + "', 1, 12, 0, 0,"
                + " 12, clock_timestamp(), clock_timestamp(), clock_timestamp() + interval '1 hour', " + total + ", "
                + totalAt + ")");
    }

    private Connection writerHoldingTheTable() throws SQLException {
        return LeaseTableLocks.writerHolding(database, "fleet", opened);
    }

    private int queryInt(String sql) {
        try (Connection side = database.connect(); Statement query = side.createStatement();
             ResultSet result = query.executeQuery(sql)) {
            result.next();
            return result.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
