package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.gate.AmbientTransactionProbe;
import dev.dbbulkhead.transaction.SpringTransactionProbe;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the bulkheads reach by reflection, for applications processed ahead of time (a native image needs it
 * declared): the gate finds its probe of an active Spring transaction with {@link java.util.ServiceLoader}, which
 * reads a service file and calls the probe's public constructor. The {@code @DbBulkhead} methods are registered
 * by the annotation itself (it is {@code @Reflective}); the properties and the endpoint by Spring Boot.
 */
final class BulkheadRuntimeHints implements RuntimeHintsRegistrar {

    static final String PROBE_SERVICE_FILE = "META-INF/services/" + AmbientTransactionProbe.class.getName();

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(PROBE_SERVICE_FILE);
        hints.reflection().registerType(SpringTransactionProbe.class, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
    }
}
