package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AdmissionRulesTests {

    @Test
    void theDefaultsAreNoRulesAndKeepTheGateAsItWas() {
        AdmissionRules none = AdmissionRules.none();

        assertThat(none.isNone()).isTrue();
        assertThat(none.criticalReserve()).isEqualTo(AdmissionRules.DEFAULT_CRITICAL_RESERVE);
        assertThat(none.sheddableReserve()).isEqualTo(AdmissionRules.DEFAULT_SHEDDABLE_RESERVE);
        assertThat(none.fairShares()).isEqualTo(AdmissionRules.DEFAULT_FAIR_SHARES);
        assertThat(none.keySlots()).isEqualTo(AdmissionRules.DEFAULT_KEY_SLOTS);
        assertThat(GateConfig.defaults().admissionRules()).isEqualTo(GateConfig.DEFAULT_ADMISSION_RULES).isSameAs(none);
        assertThat(GateConfig.defaults().toString()).doesNotContain("admissionRules");
        assertThat(new AdmissionGate("plain", GateConfig.defaults()).hasFastPath()).isTrue();
        assertThat(new AdmissionGate("plain", GateConfig.defaults()).flowsKnown()).as("no order of waiters").isEqualTo(-1);
    }

    @Test
    void aGateWithRulesLeavesTheFastPathAndKeepsItsRulesThroughAResize() {
        AdmissionRules rules = AdmissionRules.builder().criticalReserve(0.25).fairShares(true).keySlots(16).build();
        AdmissionGate gate = new AdmissionGate("ruled", GateConfig.builder().admissionRules(rules).build());

        gate.resize(8, 4);

        assertThat(gate.hasFastPath()).isFalse();
        assertThat(gate.config().admissionRules()).isEqualTo(rules);
        assertThat(gate.config().toString()).endsWith(", admissionRules=" + rules + "]");
        assertThat(gate.flowsKnown()).as("an order of waiters, no flow yet").isZero();
    }

    @Test
    void outOfRangeValuesAreRefusedNamingTheRangeAndTheValue() {
        assertThatIllegalArgumentException().isThrownBy(() -> AdmissionRules.builder().criticalReserve(1.0))
                .withMessage("criticalReserve must be at least 0 and below 1, was 1.0");
        assertThatIllegalArgumentException().isThrownBy(() -> AdmissionRules.builder().sheddableReserve(-0.1))
                .withMessage("sheddableReserve must be at least 0 and below 1, was -0.1");
        assertThatIllegalArgumentException().isThrownBy(() -> AdmissionRules.builder().criticalReserve(Double.NaN))
                .withMessage("criticalReserve must be at least 0 and below 1, was NaN");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> AdmissionRules.builder().criticalReserve(0.5).sheddableReserve(0.25).build())
                .withMessage("sheddableReserve must be between criticalReserve 0.5 and 1 (exclusive), was 0.25");
        assertThatIllegalArgumentException().isThrownBy(() -> AdmissionRules.builder().keySlots(100))
                .withMessage("keySlots must be a power of two between 1 and 65536, was 100");
        assertThatIllegalArgumentException().isThrownBy(() -> AdmissionRules.builder().keySlots(1 << 17))
                .withMessage("keySlots must be a power of two between 1 and 65536, was 131072");
        assertThatIllegalArgumentException().isThrownBy(() -> AdmissionRules.builder().keyWeights(Map.of("a", 0)))
                .withMessage("keyWeights['a'] must be between 1 and 1000, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> AdmissionRules.builder().maxRunningPerKey(-1))
                .withMessage("maxRunningPerKey must be between 1 and 2147483647, or 0 for no cap, was -1");
        assertThatIllegalArgumentException().isThrownBy(() -> AdmissionRules.builder().maxRunningPerKey(2).build())
                .withMessage("maxRunningPerKey 2 needs fairShares: without them every operation is one flow, and the cap "
                        + "would be a smaller B");
        assertThatIllegalArgumentException().isThrownBy(() -> GateConfig.builder().admissionRules(null))
                .withMessage("admissionRules must be rules or AdmissionRules.none(), was null");
    }

    @Test
    void toBuilderRoundTripsAndAnUnsetSheddableReserveFollowsTheCriticalOne() {
        AdmissionRules rules = AdmissionRules.builder().criticalReserve(0.2).fairShares(true).keySlots(64)
                .keyWeights(Map.of("gold", 3)).build();

        assertThat(rules.sheddableReserve()).isEqualTo(0.2);
        assertThat(rules.toBuilder().build()).isEqualTo(rules).hasSameHashCodeAs(rules);
        assertThat(rules.toBuilder().keySlots(32).build()).isNotEqualTo(rules);
        assertThat(rules.weightOf("gold")).isEqualTo(3);
        assertThat(rules.weightOf("anyone")).isEqualTo(AdmissionRules.DEFAULT_KEY_WEIGHT);
    }

    @Test
    void reservesRoundDownSoThatASmallGateIsNeverWhollyHeldBack() {
        AdmissionRules rules = AdmissionRules.builder().criticalReserve(0.25).sheddableReserve(0.5).build();

        assertThat(rules.admittedCeiling(Criticality.CRITICAL, 10)).isEqualTo(10);
        assertThat(rules.admittedCeiling(Criticality.DEFAULT, 10)).isEqualTo(8);
        assertThat(rules.admittedCeiling(Criticality.SHEDDABLE, 10)).isEqualTo(5);
        assertThat(rules.admittedCeiling(Criticality.DEFAULT, 1)).isEqualTo(1);
        assertThat(AdmissionRules.builder().criticalReserve(0.99).build().admittedCeiling(Criticality.DEFAULT, 1))
                .isEqualTo(1);
    }
}
