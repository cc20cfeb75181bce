package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.annotation.DbBulkhead;
import dev.dbbulkhead.transaction.SpringTransactionProbe;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.util.ReflectionUtils;

/** The reflection an AOT-processed (native) application needs is declared, as Spring's AOT engine collects it. */
class AheadOfTimeHintsTests {

    private final RuntimeHints hints = new RuntimeHints();

    @Test
    void theAotEngineFindsTheBulkheadHintsAndTheyCoverTheTransactionProbeTheGateLoads() throws NoSuchMethodException {
        registerTheHintsTheAotEngineFinds();

        assertThat(RuntimeHintsPredicates.resource().forResource(BulkheadRuntimeHints.PROBE_SERVICE_FILE))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                .onConstructorInvocation(SpringTransactionProbe.class.getConstructor())).accepts(hints);
    }

    @Test
    void theAotEngineFindsTheHintForSpringsChoiceOfATransactionalMethodsTransactionManager() {
        registerTheHintsTheAotEngineFinds();

        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ReflectionUtils.findMethod(
                TransactionAspectSupport.class, "determineTransactionManager", TransactionAttribute.class,
                Class.class))).accepts(hints);
    }

    @Test
    void aDbBulkheadMethodIsRegisteredForInvocation() throws NoSuchMethodException {
        new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Entry.class);

        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Entry.class.getMethod("place"))).accepts(hints);
    }

    private void registerTheHintsTheAotEngineFinds() {
        SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                .load(RuntimeHintsRegistrar.class)
                .forEach(registrar -> registrar.registerHints(hints, getClass().getClassLoader()));
    }

    static class Entry {
        @DbBulkhead("orders")
        public void place() {
        }
    }
}
