package dev.dbbulkhead.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RenewalCadenceTests {

    private static final Duration TTL = Duration.ofSeconds(5);

    @Test
    void aFleetOfUpToFiveRenewsEveryHeartbeat() {
        for (int members = 1; members <= 5; members++) {
            assertThat(RenewalCadence.heartbeatsPerRenewal(members, TTL)).isEqualTo(1);
        }
    }

    @Test
    void aLargerFleetRenewsAboutOnceAHeartbeatInAll() {
        assertThat(RenewalCadence.heartbeatsPerRenewal(6, TTL)).isEqualTo(6);
        assertThat(RenewalCadence.heartbeatsPerRenewal(100, TTL)).isEqualTo(100);
    }

    @Test
    void noLeaseIsStretchedPastTheLongestTtl() {
        assertThat(RenewalCadence.heartbeatsPerRenewal(1_000, Duration.ofDays(1))).isEqualTo(2);
        assertThat(RenewalCadence.heartbeatsPerRenewal(1_000, FleetSettings.MAX_LEASE_TTL)).isEqualTo(1);
        assertThat(RenewalCadence.heartbeatsPerRenewal(Integer.MAX_VALUE, TTL)).isEqualTo(
                (int) (FleetSettings.MAX_LEASE_TTL.toNanos() / TTL.toNanos()));
    }

    @Test
    void afterAChangeTheMembersRenewAtPlacesSpreadOverTheCycle() {
        Set<Integer> places = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            int place = RenewalCadence.heartbeatsAfterChange("m" + i, 100);
            assertThat(place).isBetween(1, 100);
            places.add(place);
        }
        assertThat(places).as("distinct places of 100 members in a cycle of 100").hasSizeGreaterThan(50);
        assertThat(RenewalCadence.heartbeatsAfterChange("m0", 1)).isEqualTo(1);
    }
}
