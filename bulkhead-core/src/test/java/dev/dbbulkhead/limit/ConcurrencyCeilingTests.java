package dev.dbbulkhead.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import org.junit.jupiter.api.Test;

/** The one owner of a gate's B: what is requested, what caps it, and the gate running with the smaller. */
class ConcurrencyCeilingTests {

    @Test
    void theGateRunsWithTheSmallerOfWhatIsRequestedAndTheCeilingWhicheverChangesLast() {
        AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(8).build());
        ConcurrencyCeiling ceiling = ConcurrencyCeiling.of(gate);

        ceiling.limitTo(3);
        assertThat(gate.config().maxConcurrent()).isEqualTo(3);
        ceiling.request(12);
        assertThat(gate.config().maxConcurrent()).as("a larger request stays capped").isEqualTo(3);
        ceiling.limitTo(ConcurrencyCeiling.NONE);
        assertThat(gate.config().maxConcurrent()).as("the cap lifted, the last request applies").isEqualTo(12);
        ceiling.request(2);
        ceiling.limitTo(5);
        assertThat(gate.config().maxConcurrent()).isEqualTo(2);
        assertThatIllegalArgumentException().isThrownBy(() -> ceiling.request(0)).withMessageContaining("was 0");
        assertThat(ceiling.requested()).isEqualTo(2);
    }

    @Test
    void everyWriterOfAGatesBGetsTheSameOwnerSoACapSetByOneHoldsForTheOthers() {
        AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(8).build());

        ConcurrencyCeiling.of(gate).limitTo(3);
        ConcurrencyCeiling.of(gate).request(6);

        assertThat(ConcurrencyCeiling.of(gate)).isSameAs(ConcurrencyCeiling.of(gate));
        assertThat(gate.config().maxConcurrent()).as("the request stays under the cap").isEqualTo(3);
        assertThat(ConcurrencyCeiling.of(gate).requested()).isEqualTo(6);
    }

    @Test
    void aResizeSetsWhatItIsGivenInOneStepKeepsWhatItIsNotAndStaysUnderTheCap() {
        AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(8).maxQueued(4).build());
        ConcurrencyCeiling ceiling = ConcurrencyCeiling.of(gate);
        ceiling.limitTo(3);

        ceiling.resize(10, null);
        assertThat(gate.config().maxConcurrent()).isEqualTo(3);
        assertThat(gate.config().maxQueued()).as("Q left out").isEqualTo(4);
        ceiling.resize(null, 6);
        assertThat(gate.config().maxConcurrent()).as("B left out").isEqualTo(3);
        assertThat(gate.config().maxQueued()).isEqualTo(6);
        assertThat(ceiling.requested()).as("still the last B requested").isEqualTo(10);
        ceiling.resize(2, 1);
        assertThat(gate.config().maxConcurrent()).isEqualTo(2);
        assertThat(gate.config().maxQueued()).isEqualTo(1);
        assertThatIllegalArgumentException().isThrownBy(() -> ceiling.resize(5, -1)).withMessageContaining("was -1");
        assertThat(gate.config().maxConcurrent()).as("a refused resize changes nothing").isEqualTo(2);
        assertThat(ceiling.requested()).isEqualTo(2);
    }
}
