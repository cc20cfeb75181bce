package dev.dbbulkhead.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.GateListener;
import dev.dbbulkhead.gate.OperationClass;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The busiest keys of a workload, counted within a fixed size whatever keys arrive, and metered as capped. */
class KeyTallyTests {

    private final KeyTally tally = new KeyTally("tenants", 2, null);

    @Test
    void theBusiestKeysAreCountedOnTheirOwnAndTheRestAsOther() {
        times(5, () -> tally.record("acme", true));
        times(3, () -> tally.record("globex", true));
        tally.record("globex", false);
        tally.record("initech", true);

        assertThat(tally.topKeys()).extracting(KeyTally.Counts::key).containsExactly("acme", "globex");
        assertThat(tally.topKeys().get(1).rejected()).isEqualTo(1);
        assertThat(tally.other().admitted()).isEqualTo(1);
    }

    @Test
    void aFloodOfDistinctKeysNeverTakesTheNamedPlacesOfBusyOnes() {
        int flood = 0;
        for (int round = 0; round < 10_000; round++) {
            tally.record("acme", true);
            tally.record("acme", true);
            tally.record("globex", true);
            for (int i = 0; i < 10; i++) {
                tally.record("flood-" + flood++, true);
            }
        }

        assertThat(tally.topKeys()).extracting(KeyTally.Counts::key).containsExactly("acme", "globex");
        assertThat(tally.topKeys()).extracting(KeyTally.Counts::admitted).containsExactly(20_000L, 10_000L);
        assertThat(tally.other().admitted()).isEqualTo(100_000);
    }

    @Test
    void aFloodAfterTheNamedKeysWentIdleTakesNoneOfTheirPlaces() {
        times(5, () -> tally.record("acme", true));
        times(5, () -> tally.record("globex", true));
        for (int i = 0; i < 100_000; i++) {
            tally.record("flood-" + i, true);
        }

        assertThat(tally.topKeys()).as("the idle keys lost their entries, and no flood key is known to be busy")
                .isEmpty();
        assertThat(tally.other().admitted()).isEqualTo(100_000);
    }

    @Test
    void aKeyThatOvertakesANamedOneTakesItsPlace() {
        times(3, () -> tally.record("acme", true));
        times(2, () -> tally.record("globex", true));
        times(4, () -> tally.record("initech", true));

        assertThat(tally.topKeys()).extracting(KeyTally.Counts::key).containsExactly("acme", "initech");
        assertThat(tally.topKeys().get(1).admitted()).as("counted from when it was named").isEqualTo(2);
        assertThat(tally.other().admitted()).as("initech's before it was named").isEqualTo(2);
    }

    @Test
    void theMetersNeverHoldMoreThanTheMeteredKeysAndOther() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        KeyTallies tallies = new KeyTallies();
        KeyMeterBinder binder = new KeyMeterBinder(registry, tallies);
        tallies.add(tally);
        for (int round = 1; round <= 20; round++) {
            // Each round a new busiest key: the named keys keep changing, the meters stay capped.
            String busy = "busy-" + round;
            times(round * 10, () -> tally.record(busy, true));
            for (int i = 0; i < 50; i++) {
                tally.record("light-" + round + "-" + i, false);
            }
            assertThat(keysMetered(registry)).hasSizeLessThanOrEqualTo(3).contains("other", busy);
        }
        assertThat(counter(registry, "busy-20", "admitted")).as("since it overtook busy-18's 180").isEqualTo(20);
        assertThat(counter(registry, "other", "rejected")).as("all but the first light key's: named while there was room")
                .isEqualTo(20 * 50 - 1);

        binder.destroy();
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void asAGateListenerItCountsTheKeyBoundToTheThread() {
        GateListener listener = tally;
        try (OperationClass.Scope bound = OperationClass.of(Criticality.DEFAULT, "acme").bind()) {
            listener.onAdmitted("tenants", 0);
            listener.onRejected("tenants", RejectionReason.OVER_FAIR_SHARE, GateListener.NEVER_ADMITTED);
        }
        listener.onAdmitted("tenants", 0);

        assertThat(tally.topKeys()).singleElement().satisfies(acme -> {
            assertThat(acme.key()).isEqualTo("acme");
            assertThat(acme.admitted()).isEqualTo(1);
            assertThat(acme.rejected()).isEqualTo(1);
        });
        assertThat(tally.other().admitted()).as("an operation without a key is not counted").isZero();
    }

    @Test
    void operationsWithoutAKeyAreCountedUnderTheKeylessKeyAsTheGateHoldsThem() {
        KeyTally withKeyless = new KeyTally("tenants", 2, "(keyless)");
        try (OperationClass.Scope bound = OperationClass.of(Criticality.DEFAULT, "acme").bind()) {
            withKeyless.onAdmitted("tenants", 0);
        }
        withKeyless.onAdmitted("tenants", 0);
        withKeyless.onAdmitted("tenants", 0);
        try (OperationClass.Scope bound = OperationClass.of(Criticality.SHEDDABLE).bind()) {
            withKeyless.onRejected("tenants", RejectionReason.OVER_FAIR_SHARE, GateListener.NEVER_ADMITTED);
        }

        assertThat(withKeyless.topKeys()).extracting(KeyTally.Counts::key).containsExactly("(keyless)", "acme");
        assertThat(withKeyless.topKeys().get(0).admitted()).isEqualTo(2);
        assertThat(withKeyless.topKeys().get(0).rejected()).isEqualTo(1);
    }

    private static Set<String> keysMetered(SimpleMeterRegistry registry) {
        return registry.find(KeyMeterBinder.KEY_OPERATIONS).tag("workload", "tenants").meters().stream()
                .map(meter -> meter.getId().getTag("key")).collect(Collectors.toSet());
    }

    private static double counter(SimpleMeterRegistry registry, String key, String outcome) {
        Meter meter = registry.get(KeyMeterBinder.KEY_OPERATIONS).tag("key", key).tag("outcome", outcome).meter();
        return ((FunctionCounter) meter).count();
    }

    private static void times(int count, Runnable action) {
        for (int i = 0; i < count; i++) {
            action.run();
        }
    }
}
