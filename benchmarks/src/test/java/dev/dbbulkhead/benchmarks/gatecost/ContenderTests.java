package dev.dbbulkhead.benchmarks.gatecost;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.BulkheadRejectedException;
import io.github.resilience4j.bulkhead.BulkheadFullException;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource.Mode;
import org.junit.jupiter.params.provider.EnumSource;

/** The gate-cost benchmarks measure what they claim: wide guards admit, occupied single guards refuse. */
class ContenderTests {

    private static final Set<Contender> REFUSING_WITH_STACK_TRACE = EnumSet.of(Contender.DB_BULKHEAD_STACK_TRACE,
            Contender.RESILIENCE4J, Contender.SPRING_THROTTLE_INTERCEPTOR, Contender.SPRING_CONCURRENCY_LIMIT);

    @ParameterizedTest
    @EnumSource(Contender.class)
    void aWideGuardAdmitsAndReleasesEveryCall(Contender contender) {
        try (GuardUnderTest guard = contender.create(Contender.Shape.WIDE)) {
            for (int call = 0; call < 3 * Contender.Shape.WIDE.limit; call++) {
                assertThat(guard.admitRelease()).as("call %d", call).isNull();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Contender.class)
    void anOccupiedSingleGuardRefusesAndAdmitsAgainOnceFreed(Contender contender) throws InterruptedException {
        try (GuardUnderTest guard = contender.create(Contender.Shape.SINGLE)) {
            try (Occupant occupant = Occupant.enter(guard)) {
                assertThat(guard.admitRelease()).isNotNull();
            }
            assertThat(guard.admitRelease()).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Contender.class, mode = Mode.EXCLUDE, names = {"SEMAPHORE", "NAIVE_TWO_SEMAPHORES"})
    void aRefusalCarriesAStackTraceOnlyWhereTheGuardFillsOneIn(Contender contender) throws InterruptedException {
        try (GuardUnderTest guard = contender.create(Contender.Shape.SINGLE);
             Occupant occupant = Occupant.enter(guard)) {
            Throwable refusal = (Throwable) guard.admitRelease();
            assertThat(refusal).isInstanceOfAny(BulkheadRejectedException.class, BulkheadFullException.class,
                    java.util.concurrent.RejectedExecutionException.class);
            assertThat(refusal.getStackTrace().length > 0).isEqualTo(REFUSING_WITH_STACK_TRACE.contains(contender));
        }
    }
}
