package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class OperationClassTests {

    private static final OperationClass CHECKOUT = OperationClass.of(Criticality.CRITICAL, "tenant-a");
    private static final OperationClass PREFETCH = OperationClass.of(Criticality.SHEDDABLE);

    @Test
    void aScopeBindsItsClassAndRestoresTheOuterOneWhenClosed() {
        assertThat(OperationClass.current()).isEmpty();
        try (OperationClass.Scope outer = CHECKOUT.bind()) {
            try (OperationClass.Scope inner = PREFETCH.bind()) {
                assertThat(OperationClass.current()).contains(PREFETCH);
                inner.close();
            }
            assertThat(OperationClass.current()).contains(CHECKOUT);
        }
        assertThat(OperationClass.current()).isEmpty();
        assertThat(CHECKOUT.key()).contains("tenant-a");
        assertThat(PREFETCH.key()).isEmpty();
        assertThat(CHECKOUT).isEqualTo(OperationClass.of(Criticality.CRITICAL, "tenant-a"))
                .hasToString("OperationClass[CRITICAL, key=tenant-a]");
    }

    @Test
    void aScopeIsClosedOnItsOwnThreadOnly() throws Exception {
        try (OperationClass.Scope bound = CHECKOUT.bind()) {
            CompletableFuture<Throwable> elsewhere = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    bound.close();
                    elsewhere.complete(null);
                } catch (Throwable refused) {
                    elsewhere.complete(refused);
                }
            }).join();
            assertThat(elsewhere.get()).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("An operation class bound on");
            assertThat(OperationClass.current()).contains(CHECKOUT);
        }
    }

    @Test
    void aThreadStartedInsideTheScopeDoesNotCarryTheClassUnlessWrapped() throws Exception {
        AtomicReference<Optional<OperationClass>> started = new AtomicReference<>();
        AtomicReference<Optional<OperationClass>> wrapped = new AtomicReference<>();
        try (OperationClass.Scope bound = CHECKOUT.bind()) {
            Thread.ofVirtual().start(() -> started.set(OperationClass.current())).join();
            Thread.ofVirtual().start(CHECKOUT.wrap(() -> wrapped.set(OperationClass.current()))).join();
        }
        assertThat(started.get()).isEmpty();
        assertThat(wrapped.get()).contains(CHECKOUT);
        assertThat(CHECKOUT.wrap(() -> OperationClass.current().orElseThrow()).call()).isEqualTo(CHECKOUT);
        assertThat(OperationClass.current()).isEmpty();
    }

    @Test
    void nullsAreRefused() {
        assertThatThrownBy(() -> OperationClass.of(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> OperationClass.of(Criticality.DEFAULT, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aKeyOfTenKilobytesIsKeptAsSixtyFourCharactersTheSameEachTimeAndApartFromAnother() {
        String tenKilobytes = "t".repeat(10_240);
        String another = "t".repeat(10_239) + "u";

        String kept = OperationClass.of(Criticality.DEFAULT, tenKilobytes).key().orElseThrow();

        assertThat(kept).hasSize(OperationClass.MAX_KEY_LENGTH).startsWith("t".repeat(47) + "~")
                .matches("t{47}~[0-9a-f]{16}");
        assertThat(OperationClass.of(Criticality.CRITICAL, tenKilobytes).key()).contains(kept);
        assertThat(OperationClass.boundedKey(another)).hasSize(OperationClass.MAX_KEY_LENGTH).isNotEqualTo(kept);
    }

    @Test
    void aKeyOfAtMostSixtyFourCharactersIsKeptAsItIs() {
        String longest = "k".repeat(OperationClass.MAX_KEY_LENGTH);

        assertThat(OperationClass.of(Criticality.DEFAULT, longest).key()).contains(longest);
        assertThat(OperationClass.boundedKey("acme")).isEqualTo("acme");
    }

    @Test
    void aLongKeyIsNotCutInsideASurrogatePair() {
        String emoji = "\uD83D\uDE00";
        String key = "x".repeat(46) + emoji + "y".repeat(100);

        String kept = OperationClass.boundedKey(key);

        assertThat(kept).hasSizeLessThanOrEqualTo(OperationClass.MAX_KEY_LENGTH).startsWith("x".repeat(46) + "~");
    }

    @Test
    void aWeightForAKeyLongerThanAnyKeptIsRefusedNamingTheBound() {
        assertThatThrownBy(() -> AdmissionRules.builder().keyWeights(java.util.Map.of("w".repeat(65), 2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 64 characters long, was 65");
    }
}
