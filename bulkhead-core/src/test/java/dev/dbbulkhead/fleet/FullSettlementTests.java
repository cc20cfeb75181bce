package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.fleet.FleetStatements.Row;
import dev.dbbulkhead.fleet.FleetStatements.Total;
import dev.dbbulkhead.testing.PostgresFixture;
import dev.dbbulkhead.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A renewal settled in full: which rows it takes, which total it settles against, without a database; and one
 * settlement on a real PostgreSQL, of a fleet with a row of another budget and an expired member. The coordinator's
 * own tests judge the settlement as the whole fleet sees it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class FullSettlementTests {

    private static final OffsetDateTime NOW = OffsetDateTime.of(2026, 1, 1, 12, 0, 0, 0, ZoneOffset.UTC);
    private static final Duration TTL = Duration.ofMinutes(5);
    private static final int BUDGET = 12;

    @Test
    void aRowIsTakenOnlyWhenItAgreesWithThisMembersConfiguration() {
        assertThat(FullSettlement.disagreement(row("a", 1, 6, 4, 6, BUDGET, null), NOW, BUDGET)).isNull();
        assertThat(FullSettlement.disagreement(row("a", 1, 6, 4, 6, 20, null), NOW, BUDGET))
                .isEqualTo("its budget 20 differs from this member's 12");
        assertThat(FullSettlement.disagreement(row("a", 0, 6, 4, 6, BUDGET, null), NOW, BUDGET))
                .contains("is out of range (weight and demand at least 1");
        assertThat(FullSettlement.disagreement(row("a", 1, 6, 7, 6, BUDGET, null), NOW, BUDGET))
                .as("a grant past the demand").contains("grant 7");
        assertThat(FullSettlement.disagreement(new Row("a", 1, 6, 4, 6, BUDGET, NOW,
                NOW.plus(FleetSettings.MAX_LEASE_TTL).plusSeconds(1), null, null, null), NOW, BUDGET))
                .contains("further ahead than any member's lease ttl");
        assertThat(FullSettlement.disagreement(new Row("a", 1, 6, 4, 6, BUDGET, NOW, NOW.plus(TTL), "psql", null,
                null), NOW, BUDGET)).contains("is not of the member form");
        assertThat(FullSettlement.disagreement(row("a", 1, 6, 4, 6, BUDGET, new Total(13, NOW)), NOW, BUDGET))
                .as("a total past the budget").contains("its fleet total 13");
        assertThat(FullSettlement.disagreement(row("a", 1, 6, 4, 6, BUDGET, new Total(8, NOW.plusSeconds(1))), NOW,
                BUDGET)).as("a total written after now").contains("its fleet total 8");
        assertThat(FullSettlement.disagreement(new Row("a", 1, 6, 4, 6, BUDGET, NOW, NOW.plus(TTL), null, 8, null),
                NOW, BUDGET)).as("half a total").contains("both or neither");
    }

    @Test
    void theNewestTotalIsTheNewestOfTheRowsTakenTheFirstMemberIdsAmongEquallyNewOnes() {
        List<Row> rows = List.of(row("c", 1, 6, 4, 6, BUDGET, new Total(9, NOW)),
                row("b", 1, 6, 4, 6, BUDGET, new Total(8, NOW)),
                row("a", 1, 6, 4, 6, BUDGET, new Total(5, NOW.minusSeconds(1))),
                row("z", 1, 6, 4, 6, BUDGET, new Total(3, NOW.plusSeconds(1))),
                row("y", 1, 6, 4, 6, BUDGET, null));

        assertThat(FullSettlement.newestTotal(rows, List.of(new Lease.Ignored("z", "forged"))))
                .isEqualTo(new Total(8, NOW));
        assertThat(FullSettlement.newestTotal(rows.subList(3, 5), List.of(new Lease.Ignored("z", "forged"))))
                .isNull();
    }

    @Test
    void aSourceOfTotalsThatFailsHasNoneOrGivesOneOutOfRangeLeavesTheTotalAsItIs() {
        FleetTotals.Fleet fleet = new FleetTotals.Fleet(7, BUDGET, 6, 20);

        assertThat(FullSettlement.nextOrHeld(current -> OptionalInt.of(9), fleet)).isEqualTo(9);
        assertThat(FullSettlement.nextOrHeld(current -> OptionalInt.of(BUDGET), fleet)).isEqualTo(BUDGET);
        assertThat(FullSettlement.nextOrHeld(current -> OptionalInt.empty(), fleet)).isEqualTo(7);
        assertThat(FullSettlement.nextOrHeld(current -> OptionalInt.of(0), fleet)).isEqualTo(7);
        assertThat(FullSettlement.nextOrHeld(current -> OptionalInt.of(BUDGET + 1), fleet)).isEqualTo(7);
        assertThat(FullSettlement.nextOrHeld(current -> {
            throw new IllegalStateException("the source failed");
        }, fleet)).isEqualTo(7);
    }

    @Test
    void aSettlementIsKeptAliveOnlyForTheSameAskAndRenewsOnlyTheMembersOwnLease() {
        LeaseRequest asked = new LeaseRequest("a", 1, 6, 2, TTL, "(db-bulkhead member a)");
        FleetMemberState a = new FleetMemberState("a", 1, 6, 6, 6, Duration.ofSeconds(3), Duration.ofSeconds(1));
        FleetMemberState b = new FleetMemberState("b", 1, 6, 6, 6, Duration.ofSeconds(2), Duration.ofSeconds(2));
        FullSettlement.Settlement last = new FullSettlement.Settlement(asked, "1/0",
                new Lease(6, 6, BUDGET, 10, List.of(a, b), List.of(new Lease.Fenced("x", 1, 0, 0)), List.of()));

        assertThat(last.asked(new LeaseRequest("a", 1, 6, 5, TTL, "(db-bulkhead member a)")))
                .as("only the use differs").isTrue();
        assertThat(last.asked(new LeaseRequest("a", 2, 6, 2, TTL, "(db-bulkhead member a)"))).isFalse();
        assertThat(last.asked(new LeaseRequest("a", 1, 7, 2, TTL, "(db-bulkhead member a)"))).isFalse();
        assertThat(last.asked(new LeaseRequest("a", 1, 6, 2, TTL.plusSeconds(1), "(db-bulkhead member a)")))
                .isFalse();
        assertThat(last.asked(new LeaseRequest("a", 1, 6, 2, TTL, null))).isFalse();

        Lease kept = last.keptAlive(asked);
        assertThat(kept.granted()).isEqualTo(6);
        assertThat(kept.total()).isEqualTo(10);
        assertThat(kept.fenced()).as("fenced by the last settlement, not by this renewal").isEmpty();
        assertThat(kept.members()).containsExactly(
                new FleetMemberState("a", 1, 6, 6, 6, Duration.ZERO, TTL), b);
    }

    @Test
    void aSettlementOnTheServerDropsAnExpiredMembersRowAndIgnoresOneOfAnotherBudget() throws SQLException {
        TestDatabase database = PostgresFixture.freshSchema();
        try (Connection connection = database.connect()) {
            FleetTable.Resolved table = FleetTable.resolve(connection, "fleet", Duration.ofMillis(500), false);
            database.execute(insert("expired", BUDGET, "clock_timestamp() - interval '1 second'"),
                    insert("other", 20, "clock_timestamp() + interval '1 minute'"));
            FullSettlement settlement = new FullSettlement(BUDGET, Duration.ZERO, null, Duration.ZERO);

            FullSettlement.Settlement settled = FleetStatements.inTransaction(connection, Duration.ofMillis(500),
                    Duration.ofSeconds(2), () -> settlement.settle(connection, table,
                            new LeaseRequest("a", 1, 12, 0, TTL, "(db-bulkhead member a)")));

            assertThat(settled.lease().granted()).as("the expired member's share is free").isEqualTo(12);
            assertThat(settled.lease().ignored()).extracting(Lease.Ignored::memberId).containsExactly("other");
            assertThat(settled.lease().members()).extracting(FleetMemberState::memberId).containsExactly("a");
            List<Row> rows = new ArrayList<>();
            FleetStatements.readRows(connection, table, rows);
            assertThat(rows).extracting(Row::memberId).containsExactlyInAnyOrder("a", "other");
        }
    }

    private static String insert(String member, int budget, String expires) {
        return "INSERT INTO fleet (member_id, weight, demand, granted, target, budget, joined_at, renewed_at,"
                + " lease_expires_at) VALUES ('" + member + "', 1, 6, 6, 6, " + budget + ", clock_timestamp(),"
                + " clock_timestamp(), " + expires + ")";
    }

    private static Row row(String member, int weight, int demand, int granted, int target, int budget,
                           Total total) {
        return new Row(member, weight, demand, granted, target, budget, NOW, NOW.plus(TTL), null,
                total == null ? null : total.value(), total == null ? null : total.at());
    }
}
